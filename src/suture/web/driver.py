"""The driver of an app served to a browser: Textual's web driver, and the app ends when its server
goes away.

textual-serve talks to each app over the app's standard input and output. If the server ends
without asking the app to quit (killed, or crashed), Textual's web driver stops reading at the end
of its input and the app runs on with no page and no way to end it. This driver asks the app to
quit then. ``suture serve`` starts each app with ``TEXTUAL_DRIVER`` naming it.
"""

from __future__ import annotations

from textual import messages
from textual.drivers.web_driver import WebDriver as TextualWebDriver

__all__ = ["WebDriver"]


class WebDriver(TextualWebDriver):
    def run_input_thread(self) -> None:
        try:
            super().run_input_thread()
        finally:
            if not self.exit_event.is_set():
                # The input ended and nobody asked the app to stop: the server is gone.
                self._app.post_message(messages.ExitApp())
