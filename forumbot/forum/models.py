"""The forum's data models live in `forumbot.posts` (the extraction reads them without importing the forum
package); this name is kept for code written against it."""

from forumbot.posts import (
    BoardZone,
    ConversationPage,
    Dialect,
    PmSummary,
    Post,
    Preferences,
    PrivateMessage,
    QuoteStamp,
    TopicPage,
    Visibility,
)

__all__ = [
    "BoardZone",
    "ConversationPage",
    "Dialect",
    "PmSummary",
    "Post",
    "Preferences",
    "PrivateMessage",
    "QuoteStamp",
    "TopicPage",
    "Visibility",
]
