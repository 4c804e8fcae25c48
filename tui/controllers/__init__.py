"""The main screen's controllers: plain classes, each given the library, the screen's view
(:class:`~tui.controllers.view.MainView`) and the controllers it calls."""
