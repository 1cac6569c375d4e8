"""What several test modules share: import from here, never from another test module.

- ``tests.helpers.cli``: run the ``suture`` command as a user does, and read its one error line;
- ``tests.helpers.documents``: paths into JSON values, and the near-valid document exercise the
  format tests share (break one place of a sample; what loads keeps every record and repairs valid).
"""
