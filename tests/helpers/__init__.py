"""What several test modules share: import from here, never from another test module.

- ``tests.helpers.app``: the app driven with Pilot (the worked example, the window size, waiting
  until it has settled, what the panes show, the export as a person does it);
- ``tests.helpers.cli``: run the ``suture`` command as a user does, and read its one error line;
- ``tests.helpers.documents``: paths into JSON values, and the near-valid document exercise the
  format tests share (break one place of a sample; what loads keeps every record and repairs valid);
- ``tests.helpers.imports``: which Textual modules a fresh interpreter loads running some code;
- ``tests.helpers.messages``: histories built by hand (``U``, ``S``, ``A``, ``C``, ``T``, ``thought``);
- ``tests.helpers.records``: chat-format records drawn by Hypothesis;
- ``tests.helpers.same``: a repair and a row model compared field by field;
- ``tests.helpers.sent``: the recorded corpus, and the history the real agent sent beside the one
  suture says it sends.
"""
