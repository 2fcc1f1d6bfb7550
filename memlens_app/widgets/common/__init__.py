"""Widgets that more than one page uses: markup, session state, the router's page list,
store panels, result cards."""
