"""The rule variants by name. `find_variant("salon")` -> the Salon ruleset class."""

from __future__ import annotations

from forumbot.engine.variants.base import Ruleset, VariantOptions
from forumbot.engine.variants.gameru import Gameru
from forumbot.engine.variants.kozanostra import Kozanostra
from forumbot.engine.variants.salon import Salon
from forumbot.errors import N_, RulesError

VARIANTS: dict[str, type[Ruleset]] = {cls.name: cls for cls in (Gameru, Kozanostra, Salon)}
DEFAULT_VARIANT = Gameru.name  # what a command that needs a variant and is given none assumes


def find_variant(name: str) -> type[Ruleset]:
    try:
        return VARIANTS[name]
    except KeyError:
        raise RulesError(N_("unknown variant {name!r}; known: {known}"), name=name, known=", ".join(VARIANTS)) from None


__all__ = ["DEFAULT_VARIANT", "VARIANTS", "Ruleset", "VariantOptions", "find_variant"]
