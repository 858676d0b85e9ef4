"""Test doubles for forumbot: a fake phpBB 3.3 board that serves the real (prosilver) markup."""
