"""phpBB's own texts the fake phpBB answers with, as the English pack holds them: they are the keys of the
language table (`skeletons/languages.json`), printed in the viewer's language (`language.translate`)."""

from __future__ import annotations

from fakeboard.phpbb.bbcode import QUOTE_DEPTH

FORM_INVALID = "The submitted form was invalid. Try submitting again."
FLOOD_ERROR = "You cannot make another post so soon after your last."
TOPIC_LOCKED = "This topic is locked, you cannot edit posts or make further replies."
NOT_AUTHORISED = "You are not authorised to access this area."
MESSAGE_SENT = "This message has been sent successfully."
LOGIN_CONTACT = "If you continue to have problems please contact the {}."
WRONG_USERNAME_KEY = (
    "You have specified an incorrect username. Please check your username and try again. " + LOGIN_CONTACT
)
WRONG_PASSWORD_KEY = (
    "You have specified an incorrect password. Please check your password and try again. " + LOGIN_CONTACT
)
WRONG_USERNAME = WRONG_USERNAME_KEY.format("Board Administrator")
WRONG_PASSWORD = WRONG_PASSWORD_KEY.format("Board Administrator")
LOGIN_ATTEMPTS = (
    "You exceeded the maximum allowed number of login attempts. In addition to your username and password you now "
    "also have to solve the CAPTCHA below."
)
CAPTCHA_WRONG = "The confirmation code you entered was incorrect."
LOGIN_VIEWFORUM = "The board requires you to be registered and logged in to view this forum."
LOGIN_POST = "In order to post you need to login or register."
LOGIN_EXPLAIN = {  # posting.php's login box, by mode
    "post": "You need to login in order to post within this forum.",
    "reply": "You need to login in order to reply to topics within this forum.",
    "quote": "You need to login in order to quote posts within this forum.",
    "edit": "You need to login in order to edit posts in this forum.",
    "delete": "You need to login in order to delete posts in this forum.",
}
LOGIN_VIEWPROFILE = "The board requires you to be registered and logged in to view this profile."
NO_USER = "The requested user does not exist."
LOGIN_UCP = "Please login in order to access the User Control Panel."
LOGIN_MCP = "To moderate this forum you must be registered and logged in."
NO_TOPIC = "The requested topic does not exist."
NO_FORUM = "The forum you selected does not exist."
NO_POST = "The requested post does not exist."
NO_MESSAGE = "The private message could not be found."
TOO_FEW_CHARS = "Your message contains too few characters."
EMPTY_SUBJECT = "You must specify a subject when posting a new topic."
EMPTY_PM_SUBJECT = "You must specify a subject when composing a new message."
NO_RECIPIENT = "No recipient defined."
PM_NO_USERS = "The requested users to be added do not exist."
TOO_MANY_RECIPIENTS = "You tried to send a private message to too many recipients."
QUOTE_DEPTH_EXCEEDED = f"You may embed only {QUOTE_DEPTH} quotes within each other."
USER_CANNOT_EDIT = "You can only edit your own posts."
POST_REVIEW = "At least one new post has been made to this topic. You may wish to review your post in light of this."
POST_STORED_MOD = (
    "This message has been submitted successfully, but it will need to be approved by a moderator before it is "
    "publicly viewable. You will be notified when your post has been approved."
)
POST_DELETED = "This message has been deleted successfully."
DELETE_REFUSED = "You can only delete your own posts."
TOPIC_LOCKED_DONE = "The selected topic has been locked."
TOPIC_UNLOCKED_DONE = "The selected topic has been unlocked."
PREFS_UPDATED = "Your preferences have been updated."
