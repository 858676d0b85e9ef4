"""The host's language: what forumbot says to the host and the moderators, in English or Russian.

The language is `FORUMBOT_LANG`, else the locale's (`LC_ALL`, `LC_MESSAGES`, `LANG`, the first one set):
`ru...` is Russian, anything else English (the source strings). It is looked up at each call, so a test or a
process that changes its environment is answered in the new language; the catalogue itself is read once.

    _("text")                     a message, translated (`gettext`)
    ngettext("1 vote", "{n} votes", n)   a message whose words depend on a number (the catalogue's plural forms)
    N_("text")                    marks a message translated later, where it is shown (an error's, a help text)

The catalogue is `locale/<lang>/LC_MESSAGES/forumbot.mo`, compiled from its `.po` (`make catalogue`; the
strings are extracted from the code by `tools/catalogue.py`, which `make test` runs as a check). Only the
standard library is imported, and the catalogue is read on first use: `forumbot --help` stays fast.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gettext import NullTranslations

DOMAIN = "forumbot"
LOCALE_DIR = Path(__file__).parent / "locale"
SOURCE_LANGUAGE = "en"
LANGUAGES = (SOURCE_LANGUAGE, "ru")
LANGUAGE_VARIABLES = ("FORUMBOT_LANG", "LC_ALL", "LC_MESSAGES", "LANG")


def language() -> str:
    """ "ru" or "en": from FORUMBOT_LANG, else the locale ("ru_RU.UTF-8" is Russian; "C" and the rest English)."""
    for variable in LANGUAGE_VARIABLES:
        value = os.environ.get(variable, "").strip()
        if value:
            code = value.split(".", 1)[0].split("@", 1)[0].replace("-", "_").split("_", 1)[0].lower()
            return code if code in LANGUAGES else SOURCE_LANGUAGE
    return SOURCE_LANGUAGE


def russian() -> bool:
    return language() == "ru"


@cache
def catalogue(lang: str) -> NullTranslations:
    """The compiled catalogue of `lang` (read once); English, the source language, has none."""
    import gettext

    if lang == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang], fallback=True)


def _(message: str) -> str:
    """`message` in the host's language (as it is when the catalogue has no translation)."""
    if not message:  # gettext answers "" with the catalogue's header
        return message
    return catalogue(language()).gettext(message)


gettext = _


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message for the number `n`, by the language's plural rule (Russian has three)."""
    return catalogue(language()).ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks `message` for the catalogue without translating it: it is translated where it is shown."""
    return message
