"""The app in a browser: ``kings-corners serve`` (textual-serve, one app process per tab)."""
