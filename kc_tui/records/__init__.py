"""What is kept of the matches played: the history store, the players' ratings, and the lock that
keeps one app on the data folder."""
