"""What the game screen and a remote seat's screen share: the table's parts and their layout, the
too-small notice, and picking a card or a pile and playing it."""
