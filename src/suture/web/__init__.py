"""The app in a browser (``suture serve``): a web server that runs one app process per page.

Needs the ``web`` extra (textual-serve, aiohttp); nothing here is imported until ``suture serve``
runs.
"""
