"""Plain-text rendering of digests, spike alerts and momentum, for a terminal.

The layout is `digests.messages.layout`'s, as for every platform; plain text escapes nothing: `<b>`,
`&amp;` and `@everyone` are shown as typed, once `clean_text` has made each piece of
third-party text one bounded line with nothing a terminal would interpret.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from digests.messages.digest import Digest
from digests.messages.layout import FULL, alert_layout, clean_text, digest_layout
from digests.signals.momentum import Momentum, histogram_lines

if TYPE_CHECKING:  # the alert's module reads the store; `digestbot momentum` does not
    from digests.messages.alert import SpikeAlert

TITLE_LIMIT = FULL.title
INDENT = "   "


class PlainText:
    """The `Markup` of a terminal: the layout's lines as they are, a paper's indented."""

    indent: str = INDENT
    block_limit: int | None = None

    def escape(self, text: str) -> str:
        return text

    def strong(self, markup: str) -> str:
        return markup

    def aside(self, markup: str) -> str:
        return markup

    def topic_line(self, name: str) -> str:
        return f"## {name}"

    def linked_title(self, number: int, title: str, url: str, arxiv_id: str) -> list[str]:
        return [f"{number}. {title}", url]  # the link on its own line

    def more(self, count: int) -> str:
        return f"+{count:,} more"

    def link(self, markup: str, url: str) -> str:
        return f"{markup} ({url})"


PLAIN = PlainText()


def render_text(digest: Digest, *, title: str | None = None, histogram: bool = False) -> str:
    layout = digest_layout(digest, title or "", PLAIN, histogram=histogram)
    parts = ["\n".join(layout.heading)]
    parts += ["\n\n".join(section.blocks) for section in layout.sections]
    return "\n\n".join(parts) + "\n"


def render_alert_text(alert: SpikeAlert) -> str:
    """Headline, evidence, sparkline and 12-week histogram, then the papers with links."""
    layout = alert_layout(alert, PLAIN, histogram=True)
    return "\n".join([layout.headline, "\n\n".join(layout.blocks)]) + "\n"


def render_momentum(m: Momentum) -> str:
    """The `digestbot momentum` view: topic, momentum line and the 12-week histogram."""
    lines = [clean_text(m.topic, FULL.name), m.line, ""]
    lines += histogram_lines(m.weekly)
    return "\n".join(lines) + "\n"
