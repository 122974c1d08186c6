"""The app's dialogs."""
