"""The Textual app: screens, widgets and dialogs on top of the engine."""
