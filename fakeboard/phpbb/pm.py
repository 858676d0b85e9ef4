"""ucp.php?i=pm: the private messages: the folders (inbox, outbox, sent messages), one message, and the
compose form in phpBB's steps (add the recipients, then send)."""

from __future__ import annotations

import re

from markupsafe import Markup

from fakeboard.phpbb.bbcode import QUOTE_DEPTH, quote_bbcode, quote_depth
from fakeboard.phpbb.language import count_text
from fakeboard.phpbb.pagination import pagination, validate_start
from fakeboard.phpbb.texts import (
    EMPTY_PM_SUBJECT,
    FLOOD_ERROR,
    FORM_INVALID,
    MESSAGE_SENT,
    NO_MESSAGE,
    NO_RECIPIENT,
    PM_NO_USERS,
    TOO_FEW_CHARS,
    TOO_MANY_RECIPIENTS,
)
from fakeboard.phpbb.ucp import UcpPages
from fakeboard.server import Request, Response, number
from fakeboard.state import PrivateMessage, copy_pm

_ADDRESS = re.compile(r"address_list\[u\]\[(\d+)\]")
_REMOVE = re.compile(r"remove_u\[(\d+)\]")
_ALL_FLAGS_ON = (2 << 8) + (2 << 4) + (2 << 2) + (2 << 1)  # 556: each flag's value plus one, at its place
_FOLDERS = {"inbox": ("Inbox", 0), "outbox": ("Outbox", -2), "sentbox": ("Sent messages", -1)}  # title, id


class PmPages(UcpPages):
    """The private messages' pages, a module of the UCP."""

    def _folder_status(self, request: Request, stored: int) -> str | None:
        """ "Folder is 54% full (27 out of 50 messages stored)", when the board limits its folders."""
        limit = self.board.pm_folder_limit
        if limit <= 0:
            return None
        return self._v(request).t(
            "Folder is {}% full ({} out of {} messages stored)", round(stored * 100 / limit), stored, limit
        )

    def _folder(self, request: Request, folder: str) -> Response:
        """A PM folder, newest first: "inbox", what the member received, its rows naming the sender; or a
        folder of sent PMs, its rows naming the recipients ("To ...") with the date in `dd.info` ("Sent:
        ..."): phpBB keeps a PM in the sender's "outbox" until it is delivered (each recipient opened its PMs
        since), then in "sentbox"."""
        assert request.user is not None
        name = request.user.name
        viewer = self._v(request)
        sent = folder != "inbox"
        with self.board.lock:
            held = sorted(
                (m for m in self.board._pms.values() if _holds(folder, m, name)),
                key=lambda m: (m.time, m.pm_id),
                reverse=True,
            )
            per = self.topics_per_page
            start = validate_start(number(request.query.get("start")) or 0, per, len(held))
            rows = [
                {
                    "row_class": "bg2" if k % 2 == 0 else "bg1",
                    "pm_id": m.pm_id,
                    "subject": m.subject,
                    "time_text": viewer.date(m.time),
                    "unread": not sent and name not in m.read_by,
                    **(
                        {"recipients": [self._userref(r) for r in m.recipients]}
                        if sent
                        else {"sender": self._userref(m.sender)}
                    ),
                }
                for k, m in enumerate(held[start : start + per])
            ]
        title, folder_id = _FOLDERS[folder]
        return self._ucp_page(
            request,
            "ucp_pm_viewfolder.html",
            "View messages",
            ucp_active=folder,
            ucp_legend=not sent,
            folder_title=title,
            folder_id=folder_id,
            sent_folder=sent,
            folder_status=self._folder_status(request, len(held)),
            rows=rows,
            pages=pagination(f"./ucp.php?i=pm&folder={folder}", len(held), per, start),
            total_text=count_text(viewer.lang, len(held), "messages"),
            tokens=self._tokens(request, "ucp_pm_view"),
        )

    def _view_pm(self, request: Request) -> Response:
        assert request.user is not None
        name = request.user.name
        viewer = self._v(request)
        with self.board.lock:
            message = self.board._pms.get(number(request.query.get("p")) or 0)
            if message is None or (name not in message.recipients and name != message.sender):
                return self._message(request, NO_MESSAGE, kind="ucp")
            if name in message.recipients:
                message.read_by.add(name)
            sender = self.board._users.get(message.sender.lower())
            in_inbox = name in message.recipients
            stored = sum(1 for m in self.board._pms.values() if name in m.recipients) if in_inbox else 0
            values = {
                "pm": {"pm_id": message.pm_id, "subject": message.subject},
                "sender": self._userref(message.sender),
                "sender_posts": self.board._post_counts.get(message.sender, 0),
                "sender_joined": viewer.date(sender.joined) if sender else "",
                "sender_online": sender is not None and sender.user_id in self._online_ids(),
                "sent_text": viewer.date(message.time),
                "recipients": [self._userref(r) for r in message.recipients],
                "pm_html": Markup(self._render_bbcode(request, message.body)),
            }
        if request.query.get("view") == "print":
            values["sent_text"] = viewer.date(message.time, absolute=True)
            return self._print_page(
                request, "ucp_pm_viewmessage_print.html", "View messages", "Private messages", values
            )
        return self._ucp_page(
            request,
            "ucp_pm_viewmessage.html",
            "View messages",
            ucp_active="inbox" if in_inbox else "sentbox",
            folder_id=0 if in_inbox else -1,
            folder_name="Inbox" if in_inbox else "Sent messages",
            folder_status=self._folder_status(request, stored) if in_inbox else None,
            tokens=self._tokens(request, "ucp_pm_view"),
            **values,
        )

    def _compose(self, request: Request) -> Response:
        """The PM compose form in phpBB's steps: `add_to` (the button's name) adds the `username_list`
        names (unknown ones dropped silently unless none exists), `post` sends. More addresses than
        `max_pm_recipients`: an error, the first ones kept, nothing sent. `action=quote&p=N` starts a reply
        quoting PM N (sender, time and id in the `[quote]`)."""
        user = request.user
        assert user is not None and request.session is not None
        form = request.form
        board = self.board
        recipients: list[int] = []
        quoted: PrivateMessage | None = None
        action = request.query.get("action", "")
        if action in ("quote", "reply") and number(request.query.get("p")) is not None:
            with board.lock:
                found = board._pms.get(number(request.query.get("p")) or 0)
                if found is None or (user.name not in found.recipients and user.name != found.sender):
                    return self._message(request, NO_MESSAGE, kind="ucp")
                quoted = copy_pm(found)
                sender = board._users.get(found.sender.lower())
                if request.method == "GET" and sender is not None:
                    recipients.append(sender.user_id)
        if request.method == "GET" and number(request.query.get("u")) is not None:
            recipients.append(number(request.query.get("u")) or 0)
        for key, value in form.items():
            address = _ADDRESS.fullmatch(key)
            if address and value in ("to", "bcc") and int(address.group(1)) not in recipients:
                recipients.append(int(address.group(1)))
        removed = {int(m.group(1)) for m in map(_REMOVE.fullmatch, form) if m}
        recipients = [uid for uid in recipients if uid not in removed]
        with board.lock:
            recipients = [uid for uid in recipients if uid in board._users_by_id]
        errors: list[str] = []
        t = self._v(request).t
        if "add_to" in form or "add_bcc" in form:
            names = [n.strip() for n in form.get("username_list", "").splitlines() if n.strip()]
            with board.lock:
                found_users = [board._users.get(n.lower()) for n in names]
            known = [f.user_id for f in found_users if f is not None]
            if names and not known:
                errors.append(t(PM_NO_USERS))
            recipients += [uid for uid in dict.fromkeys(known) if uid not in recipients]
        limit = board.max_pm_recipients
        if limit > 0 and len(recipients) > limit:
            errors.append(t(TOO_MANY_RECIPIENTS))
            recipients = recipients[:limit]
        if "post" in form and not errors:
            if not self._check_form(request, "ucp_pm_compose"):
                errors.append(t(FORM_INVALID))
            if not recipients:
                errors.append(t(NO_RECIPIENT))
            if not form.get("subject", "").strip():
                errors.append(t(EMPTY_PM_SUBJECT))
            if not form.get("message", "").strip():
                errors.append(t(TOO_FEW_CHARS))
            if quote_depth(form.get("message", "")) > QUOTE_DEPTH:
                errors.append(t("You may embed only {} quotes within each other.", QUOTE_DEPTH))
            if self._flooding(user):
                errors.append(t(FLOOD_ERROR))
            if not errors:
                with board.lock:
                    names = [board._users_by_id[uid].name for uid in recipients]
                pm_id = board.send_pm(user.name, names, form["subject"].strip(), form["message"], self._now())
                self._posted(user)
                link = f"./ucp.php?i=pm&mode=view&p={pm_id}"
                return self._pm_sent(request, link)
        with board.lock:
            refs = [self._userref(board._users_by_id[uid].name) for uid in recipients]
            author = board._users.get(quoted.sender.lower()) if quoted is not None else None
        subject = form.get("subject", "")
        message = form.get("message", "")
        if quoted is not None and request.method == "GET":
            subject = quoted.subject if quoted.subject.startswith("Re: ") else f"Re: {quoted.subject}"
            if action == "quote":
                message = (
                    quote_bbcode(
                        quoted.sender,
                        quoted.body,
                        {"msg_id": quoted.pm_id, "time": int(quoted.time.timestamp())},
                        author,
                    )
                    + "\n\n"
                )
        form_action = f"./ucp.php?i=pm&mode=compose&action=post&sid={request.session.sid}"
        if quoted is not None:
            form_action = f"./ucp.php?i=pm&mode=compose&action={action}&sid={request.session.sid}&p={quoted.pm_id}"
        opening = Markup('<form id="postform" method="post" action="{}">\n').format(form_action)
        return self._ucp_page(
            request,
            "ucp_pm_compose.html",
            "Compose message",
            ucp_form_open=opening,
            ucp_active="compose",
            editor_js=True,
            pm_mode=True,
            error=Markup("<br />").join(errors) if errors else None,
            icon_label="PM icon",
            subject=subject,
            subject_maxlength=124 if quoted is not None else 120,
            message=message,
            review=None,
            recipients=refs,
            address_fields=[(f"address_list[u][{uid}]", "to") for uid in recipients],
            # phpBB's check value of the answered PM's flags (BBCode, smilies, links, signature: all on here)
            status_switch=_ALL_FLAGS_ON if quoted is not None else 0,
            tokens=self._tokens(request, "ucp_pm_compose"),
        )

    def _pm_sent(self, request: Request, link: str) -> Response:
        t = self._v(request).t
        body = Markup(
            '{}<br /><br /><a href="{}">{}</a><br /><br /><a href="./ucp.php?i=pm&amp;folder=outbox">{}</a>'
        ).format(t(MESSAGE_SENT), link, t("View your submitted private message"), t("Return to your “Outbox” folder"))
        return self._render(
            request,
            "message_body.html",
            title=t("Information"),
            kind="ucp",
            message_title=t("Information"),
            message_text=body,
            meta_refresh=(3, self._absolute(request, link)),
        )


def _holds(folder: str, message: PrivateMessage, name: str) -> bool:
    """Whether the member's folder holds the PM (a sent PM is in the outbox until it reached every recipient)."""
    if folder == "inbox":
        return name in message.recipients
    return message.sender == name and message.delivered == (folder == "sentbox")
