"""What the Invision engines share (IPB 2, IPB 3, and IPS 4's pages): which version made a page, login
walls and refusals, charsets, dates, author links (`pages.py`); the login and the page rules of the
readers (`reader.py`); the posters' common ground (`writer.py`). Not an engine of its own."""
