"""ucp.php: the login form and its answers (the token's one-second rule, the CAPTCHA after too many
failures, phpBB's three cookies), the logout, the UCP frame and the board preferences (language, time zone,
date format)."""

from __future__ import annotations

import dataclasses
import secrets
from datetime import UTC, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from markupsafe import Markup, escape

from fakeboard.phpbb.frame import PhpbbFrame, Viewer, local_target
from fakeboard.phpbb.language import (
    DEFAULT_DATEFORMAT,
    LANGUAGE_PACK,
    LANGUAGES,
    format_date,
    offset_label,
    pack,
    zone_key,
    zone_name,
)
from fakeboard.phpbb.texts import (
    FORM_INVALID,
    LOGIN_ATTEMPTS,
    PREFS_UPDATED,
    WRONG_PASSWORD_KEY,
    WRONG_USERNAME_KEY,
)
from fakeboard.server import Request, Response, redirect
from fakeboard.state import ANONYMOUS


class UcpPages(PhpbbFrame):
    """The login, the logout, the UCP frame and the preferences."""

    def _login(self, request: Request) -> Response:
        """ucp.php?mode=login. The button's name is what phpBB looks for (isset), not its localised value;
        the form token and its one-second rule come first, then the CAPTCHA once the account has
        `max_login_attempts` failures (it refuses even the right password until solved), then the name and
        the password."""
        if request.user is not None:
            return redirect(self._absolute(request, "./index.php"))
        wanted = request.query.get("redirect")
        if request.method != "POST" or "login" not in request.form:
            return self._login_wall(request, None, redirect=wanted, kind="ucp")
        form = request.form
        t = self._v(request).t
        username = form.get("username", "").strip()
        back = form.get("redirect") or wanted
        admin = Markup('<a href="./memberlist.php?mode=contactadmin">{}</a>').format(t("Board Administrator"))
        if not self._check_form(request, "login"):
            return self._login_wall(request, None, redirect=back, error=t(FORM_INVALID), kind="ucp")
        with self.board.lock:
            found = self.board._users.get(username.lower()) if username else None
            member = dataclasses.replace(found) if found is not None else None
        if member is None:
            error = Markup(escape(t(WRONG_USERNAME_KEY))).format(admin)
            return self._login_wall(request, None, redirect=back, error=error, kind="ucp")
        limit = self.board.max_login_attempts
        with self._state:
            attempts = self._login_attempts.get(member.user_id, 0)
            captcha = limit > 0 and attempts >= limit
            shown = self._captchas.get(request.session.sid) if request.session is not None else None
            solved = (
                captcha
                and self.board.captcha_code is not None
                and shown is not None
                and form.get("confirm_id") == shown
                and form.get("confirm_code", "").strip().lower() == self.board.captcha_code.lower()
            )
        if captcha and not solved:
            return self._login_wall(request, None, redirect=back, error=t(LOGIN_ATTEMPTS), kind="ucp", captcha=True)
        if member.password is None or form.get("password", "") != member.password:
            with self._state:
                self._login_attempts[member.user_id] = attempts + 1
            error = Markup(escape(t(WRONG_PASSWORD_KEY))).format(admin)
            return self._login_wall(request, None, redirect=back, error=error, kind="ucp", captcha=captcha)
        with self._state:
            self._login_attempts.pop(member.user_id, None)
            key = secrets.token_hex(8) if form.get("autologin") else ""
            if key:
                self._autologin[key] = member.user_id
        if request.session is not None:
            self.sessions.close(request.session.sid)
        request.set_cookies.clear()
        request.session = self._new_session(request, member.user_id, key)
        request.user = member
        target = local_target(back or "index.php")
        target += f"{'&' if '?' in target else '?'}sid={request.session.sid}"
        return redirect(self._absolute(request, target))

    def _logout(self, request: Request) -> Response:
        if request.user is None or request.session is None:
            return redirect(self._absolute(request, "./index.php"))
        if request.query.get("sid") != request.session.sid:
            return self._message(
                request,
                "You were not logged out, as the request did not match your session. "
                "Please contact the board administrator if you continue to experience problems.",
                refresh=(3, "./index.php"),
            )
        self.sessions.close(request.session.sid)
        with self._state:
            self._autologin.pop(request.cookies.get(f"{self.cookie_prefix}_k", ""), None)
        request.set_cookies.clear()
        request.user = None
        request.session = self._new_session(request, ANONYMOUS, "")
        return redirect(self._absolute(request, "./index.php"))

    def _ucp_page(self, request: Request, template: str, title: str, **values: Any) -> Response:
        """A UCP page (PM folders and forms, preferences); `title` is an English key."""
        t = self._v(request).t
        module = values.setdefault("ucp_module", "pm")
        if module == "prefs":
            crumbs = [
                {"forum_id": None, "href": "./ucp.php", "name": t("User Control Panel")},
                {"forum_id": None, "href": "./ucp.php?i=179", "name": t("Board preferences")},
            ]
        else:
            crumbs = [
                {"forum_id": None, "href": "./ucp.php", "name": t("User Control Panel")},
                {"forum_id": None, "href": "./ucp.php?i=ucp_pm", "name": t("Private messages")},
            ]
        if values.get("ucp_active") == "compose":
            crumbs.append({"forum_id": None, "href": "./ucp.php?i=ucp_pm&mode=compose", "name": t("Compose message")})
        user = request.user
        assert user is not None
        with self.board.lock:
            outbox = sum(1 for m in self.board._pms.values() if m.sender == user.name and not m.delivered)
            folders = [
                ("inbox", "Inbox", self._unread(user)),
                ("outbox", "Outbox", outbox),
                ("sentbox", "Sent messages", 0),
            ]
        values.setdefault("ucp_form_open", None)
        values.setdefault("ucp_legend", False)
        values.setdefault("ucp_active", None)
        values.setdefault("folder_status", None)
        return self._render(
            request,
            template,
            title=t(title),
            kind="ucp",
            section="ucp",
            crumbs=crumbs,
            pm_folders=folders,
            **values,
        )

    def _preferences(self, request: Request) -> Response:
        """ucp.php?i=ucp_prefs&mode=personal: language, time zone and date format. The `submit` button's
        name, the form token and its one-second rule; then the member's pages are printed the new way."""
        user = request.user
        assert user is not None
        form = request.form
        t = self._v(request).t
        lang = user.lang
        zone = user.tz or zone_key(self.tz)
        fmt = user.dateformat or self.board.dateformat or DEFAULT_DATEFORMAT[user.lang]
        error = None
        if request.method == "POST" and "submit" in form:
            lang = form.get("lang", lang)
            zone = form.get("tz", zone)
            fmt = form.get("dateformat", "").strip() or fmt
            if form.get("dateoptions") not in (None, "", "custom") and not form.get("dateformat"):
                fmt = form["dateoptions"]
            if not self._check_form(request, "ucp_prefs_personal"):
                error = t(FORM_INVALID)
            elif lang not in LANGUAGES:
                lang, error = user.lang, t("No mode specified.")
            elif not valid_zone(zone):
                error = t("The timezone you entered is invalid.")
            else:
                self.board.set_preferences(user.name, lang=lang, dateformat=fmt, tz=zone)
                link = "./ucp.php?i=ucp_prefs&mode=personal"
                return self._message(
                    request,
                    PREFS_UPDATED,
                    refresh=(3, link),
                    links=[("Return to the User Control Panel", link)],
                    kind="ucp",
                )
        viewer = self._v(request)
        now = viewer.now
        options = []
        for value in pack(viewer.lang)["dateoptions"]:
            sample = format_date(now, ZoneInfo(zone), value, lang=viewer.lang, now=now, absolute=True)
            if "|" in value:
                sample = f"{format_date(now, ZoneInfo(zone), value, lang=viewer.lang, now=now)} / {sample}"
            options.append((value, sample, value == fmt))
        if not any(selected for _, _, selected in options):
            options.append(("custom", t("Custom…"), True))
        else:
            options.append(("custom", t("Custom…"), False))
        return self._ucp_page(
            request,
            "ucp_prefs_personal.html",
            "Edit global settings",
            ucp_module="prefs",
            error=error,
            languages=[(code, pack(code)["name"]) for code in LANGUAGES],
            prefs_lang=lang,
            prefs_dateformat=fmt,
            prefs_dateformat_js=fmt.replace("\\", "\\\\").replace("'", "\\'"),
            default_dateformat_js=(self.board.dateformat or DEFAULT_DATEFORMAT[self.board.language])
            .replace("\\", "\\\\")
            .replace("'", "\\'"),
            date_options=options,
            tz_groups=_zone_groups(viewer, zone),
            tokens=self._tokens(request, "ucp_prefs_personal"),
        )

    # -- posting.php ------------------------------------------------------------------------------


def valid_zone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ValueError, KeyError, OSError):
        return False
    return bool(name)


def _zone_groups(viewer: Viewer, selected: str) -> list[dict[str, Any]]:
    """The UCP's time zone select: phpBB's zones grouped by their offset now, each group labelled with the
    offset and the time there ("UTC+03:00 - 01 дек 2026, 12:00"), names in the viewer's language."""
    groups: dict[timedelta, list[str]] = {}
    zones = list(LANGUAGE_PACK["zones"])
    if selected not in zones and valid_zone(selected):
        zones.append(selected)
    for zone in zones:
        try:
            offset = viewer.now.astimezone(ZoneInfo(zone)).utcoffset() or timedelta(0)
        except (ValueError, KeyError, OSError):
            continue
        groups.setdefault(offset, []).append(zone)
    out = []
    for offset in sorted(groups):
        label = offset_label(offset)
        local = viewer.now.astimezone(ZoneInfo(groups[offset][0]))
        when = format_date(local, local.tzinfo or UTC, "d M Y, H:i", lang=viewer.lang, absolute=True)
        out.append(
            {
                "label": f"{label} - {when}",
                "value": f"{label} - {groups[offset][0]} - {when}",
                "selected": selected in groups[offset],
                "zones": [
                    {
                        "value": zone,
                        "name": zone_name(viewer.lang, zone),
                        "title": f"{label} - {zone_name(viewer.lang, zone)}",
                        "selected": zone == selected,
                    }
                    for zone in groups[offset]
                ],
            }
        )
    return out


# --- a day of play, for benchmarks -------------------------------------------------------------------
