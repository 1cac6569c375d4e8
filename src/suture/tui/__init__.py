"""The suture app: original and repaired transcripts side by side.

``suture.tui.rows`` (the row model, text cleaning, search) and ``suture.tui.records`` (records
shown as JSON) import no Textual; ``suture.tui.app`` is the Textual app that renders them.
"""
