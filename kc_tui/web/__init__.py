"""The app in a browser: ``kings-corners serve`` (textual-serve, one app process per tab).

- :mod:`kc_tui.web.options`: the command line's checks (the port, loopback or not).
- :mod:`kc_tui.web.folders`: each tab's private folder under serve's root (its settings, save and
  history), removed when the tab's app ends; folders of killed tabs swept at start-up.
- :mod:`kc_tui.web.tab`: the command textual-serve runs for a tab: the folder, then the app.
- :mod:`kc_tui.web.site`: the web server (aiohttp and textual-serve, loaded by ``serve`` only).
"""
