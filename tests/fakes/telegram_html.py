"""Telegram's HTML parse mode, as the Bot API parses it, for the fake Telegram server.

The rules and error texts follow TDLib's `parse_html` (the parser behind the Bot API): tags
b/strong, i/em, u/ins, s/strike/del, a, code, pre, tg-spoiler, span class="tg-spoiler",
tg-emoji emoji-id, blockquote (optionally `expandable`); tag and attribute names are
case-insensitive; attribute values are quoted strings or bare name tokens `[A-Za-z0-9.-]`;
end tags must match the innermost open tag (`</>` closes any); only `&lt; &gt; &amp; &quot;`
and numeric references are decoded. Byte offsets in errors count UTF-8 bytes of the input.

Telegram itself is laxer than its documentation: it keeps a bare or unknown `&` as literal
text, decodes `&lt` without its `;`, and silently drops an `<a>` without href.
`strict=True` (the default) rejects all three, as the documentation requires, so a text that
passes here parses on Telegram too; `strict=False` is TDLib's exact behaviour.

Text length: TDLib checks a bot's message against `message_text_length_max` (4096) with
`utf8_length`, i.e. in Unicode code points of the visible text after entity parsing and after
trimming surrounding whitespace. `text_length(text, "utf16")` gives the stricter UTF-16 count
(the unit entity offsets use) for callers that want a safety margin.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# fmt: off
TAGS = frozenset((
    "a", "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "code", "pre",
    "tg-spoiler", "span", "tg-emoji", "blockquote",
))
# fmt: on
ENTITY_TYPES = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
}
NAMED_REFERENCES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_SPECIAL = re.compile(r"[&<]")
_SPACE = " \t\n\r\f\v"
_NAME_TOKEN = re.compile(r"[A-Za-z0-9.-]*")
_NUMERIC = re.compile(r"&#(x[0-9A-Fa-f]*|[0-9]*)")
_NAMED = re.compile(r"&([A-Za-z]*)")


class HtmlError(ValueError):
    """The text does not parse; the message is what follows "can't parse entities: "."""


@dataclass
class _Open:
    tag: str
    argument: str
    offset: int  # UTF-16 offset of the entity in the visible text
    start: int  # index into the visible-text pieces, to read an href-less link's text


@dataclass
class _Parser:
    html: str
    strict: bool
    pieces: list[str] = field(default_factory=list)
    utf16: int = 0
    stack: list[_Open] = field(default_factory=list)
    entities: list[dict] = field(default_factory=list)

    def byte(self, index: int) -> int:
        return len(self.html[:index].encode("utf-8", "surrogatepass"))

    def emit(self, text: str) -> None:
        self.pieces.append(text)
        self.utf16 += utf16_length(text)

    def run(self) -> tuple[str, list[dict]]:
        i, n = 0, len(self.html)
        while i < n:
            match = _SPECIAL.search(self.html, i)
            stop = match.start() if match else n
            if stop > i:
                self.emit(self.html[i:stop])
            if stop == n:
                break
            if self.html[stop] == "&":
                i = self.reference(stop)
            elif self.html.startswith("</", stop):
                i = self.end_tag(stop)
            else:
                i = self.start_tag(stop)
        if self.stack:
            tag = self.stack[-1].tag
            raise HtmlError(f'Can\'t find end tag corresponding to start tag "{tag}"')
        self.entities.sort(key=lambda e: (e["offset"], -e["length"]))
        return "".join(self.pieces), self.entities

    def reference(self, i: int) -> int:
        char, end = decode_reference(self.html, i)
        if char is None or (self.strict and not self.html.startswith(";", end - 1)):
            if self.strict:
                raise HtmlError(
                    f'Unescaped "&" at byte offset {self.byte(i)}: write &amp;'
                    " (only &lt; &gt; &amp; &quot; and &#N; are references)"
                )
            self.emit("&")
            return i + 1
        if 0xD800 <= ord(char) <= 0xDFFF:
            raise HtmlError(
                "Text contains invalid Unicode characters after decoding HTML entities, "
                "check for unmatched surrogate code units"
            )
        self.emit(char)
        return end

    def skip_space(self, i: int) -> int:
        while i < len(self.html) and self.html[i] in _SPACE:
            i += 1
        return i

    def scan(self, i: int, stops: str) -> int:
        while i < len(self.html) and self.html[i] not in stops:
            i += 1
        return i

    def start_tag(self, begin: int) -> int:
        html, at = self.html, self.byte(begin)
        i = self.scan(begin + 1, _SPACE + ">")
        if i == len(html):
            raise HtmlError(f"Unclosed start tag at byte offset {at}")
        tag = html[begin + 1 : i].lower()
        if tag not in TAGS:
            raise HtmlError(f'Unsupported start tag "{tag}" at byte offset {at}')
        argument = ""
        while True:
            i = self.skip_space(i)
            if i == len(html):
                raise HtmlError(f'Unclosed start tag "{tag}" at byte offset {at}')
            if html[i] == ">":
                break
            name, value, i = self.attribute(tag, i, at)
            argument = _argument(tag, name, value, argument)
        if tag == "span" and argument != "spoiler":
            raise HtmlError(f'Tag "span" must have class "tg-spoiler" at byte offset {at}')
        if tag == "a" and not argument and self.strict:
            raise HtmlError(f'Tag "a" must have an href attribute at byte offset {at}')
        self.stack.append(_Open(tag, argument, self.utf16, len(self.pieces)))
        return i + 1

    def attribute(self, tag: str, i: int, at: int) -> tuple[str, str, int]:
        html = self.html
        end = self.scan(i, _SPACE + "=>")
        name = html[i:end].lower()
        if not name:
            raise HtmlError(f'Empty attribute name in the tag "{tag}" at byte offset {at}')
        i = self.skip_space(end)
        if i == len(html):
            raise HtmlError(f'Unclosed start tag "{tag}" at byte offset {at}')
        if html[i] != "=":
            return name, "", i  # a valueless attribute such as `expandable`
        i = self.skip_space(i + 1)
        if i == len(html):
            raise HtmlError(f'Unclosed start tag "{tag}" at byte offset {at}')
        if html[i] in "'\"":
            return (name, *self.quoted(i, at))
        token = _NAME_TOKEN.match(html, i)
        assert token is not None
        if token.end() == len(html) or html[token.end()] not in _SPACE + ">":
            raise HtmlError(f"Unexpected end of name token at byte offset {self.byte(i)}")
        return name, token.group().lower(), token.end()

    def quoted(self, i: int, at: int) -> tuple[str, int]:
        quote, html, value = self.html[i], self.html, []
        i += 1
        while i < len(html) and html[i] != quote:
            char, end = decode_reference(html, i) if html[i] == "&" else (None, i)
            value.append(char if char is not None else html[i])
            i = end if char is not None else i + 1
        if i >= len(html) - 1:
            raise HtmlError(f"Unclosed start tag at byte offset {at}")
        return "".join(value), i + 1

    def end_tag(self, begin: int) -> int:
        html, at = self.html, self.byte(begin)
        if not self.stack:
            raise HtmlError(f"Unexpected end tag at byte offset {at}")
        end = self.scan(begin + 2, _SPACE + ">")
        name = html[begin + 2 : end].lower()
        i = self.skip_space(end)
        if i == len(html) or html[i] != ">":
            raise HtmlError(f"Unclosed end tag at byte offset {at}")
        opened = self.stack.pop()
        if name and name != opened.tag:
            raise HtmlError(
                f'Unmatched end tag at byte offset {at}, expected "</{opened.tag}>", '
                f'found "</{name}>"'
            )
        if self.utf16 > opened.offset:
            self.close_entity(opened)
        return i + 1

    def close_entity(self, opened: _Open) -> None:
        entity = {"offset": opened.offset, "length": self.utf16 - opened.offset}
        last = self.entities[-1] if self.entities else None
        same_span = last is not None and (last["offset"], last["length"]) == (
            entity["offset"],
            entity["length"],
        )
        tag, argument = opened.tag, opened.argument
        if tag in ENTITY_TYPES:
            entity["type"] = ENTITY_TYPES[tag]
        elif tag == "tg-emoji":
            if not (argument.isdigit() and 0 < int(argument) < 2**63):
                raise HtmlError("Invalid custom emoji identifier specified")
            entity.update(type="custom_emoji", custom_emoji_id=argument)
        elif tag == "a":
            url = argument or "".join(self.pieces[opened.start :])
            entity.update(type="text_link", url=url)
        elif tag == "blockquote":
            entity["type"] = "expandable_blockquote" if argument else "blockquote"
        elif tag == "pre" and same_span and last["type"] == "code" and "language" in last:
            last["type"] = "pre"
            return
        elif tag == "code" and same_span and last["type"] == "pre" and argument:
            last["language"] = argument
            return
        else:
            entity["type"] = tag
            if tag == "code" and argument:
                entity["language"] = argument  # kept only if a same-span <pre> follows
        self.entities.append(entity)


def _argument(tag: str, name: str, value: str, current: str) -> str:
    if tag == "a" and name == "href":
        return value
    if tag == "code" and name == "class" and value.startswith("language-"):
        return value.removeprefix("language-")
    if tag == "span" and name == "class" and value.startswith("tg-"):
        return value.removeprefix("tg-")
    if tag == "tg-emoji" and name == "emoji-id":
        return value
    if tag == "blockquote" and name == "expandable":
        return "1"
    return current


def decode_reference(text: str, i: int) -> tuple[str | None, int]:
    """Decode the character reference at `text[i] == "&"`: (character or None, end index).

    Like TDLib, the `;` is optional; a numeric reference must be 1..0x10FFFE and short.
    """
    numeric = _NUMERIC.match(text, i)
    if numeric:
        digits = numeric.group(1)
        is_hex = digits.startswith("x")
        try:
            code = int(digits[1:], 16) if is_hex else int(digits)
        except ValueError:
            return None, i
        if code == 0 or code >= 0x10FFFF or numeric.end() - i >= 10:
            return None, i
        end = numeric.end()
    else:
        named = _NAMED.match(text, i)
        assert named is not None
        if named.group(1) not in NAMED_REFERENCES:
            return None, i
        code, end = ord(NAMED_REFERENCES[named.group(1)]), named.end()
    return chr(code), end + 1 if text.startswith(";", end) else end


def parse_telegram_html(html: str, *, strict: bool = True) -> tuple[str, list[dict]]:
    """Parse like Telegram: (visible text, MessageEntity dicts in UTF-16 units); HtmlError."""
    text, entities = _Parser(html, strict).run()
    for entity in entities:
        if entity["type"] == "code":
            entity.pop("language", None)
    return text, entities


def validate_telegram_html(html: str, *, strict: bool = True) -> str | None:
    """The error Telegram would give for this HTML text (without its prefix), or None."""
    try:
        parse_telegram_html(html, strict=strict)
    except HtmlError as exc:
        return str(exc)
    return None


def utf16_length(text: str) -> int:
    """Length in UTF-16 code units, the unit of MessageEntity offsets and lengths."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def text_length(text: str, unit: str = "code_points") -> int:
    """Length as Telegram's 4096/1024 limits count it: code points (TDLib), or "utf16"."""
    return utf16_length(text) if unit == "utf16" else len(text)


def strip_text(text: str, entities: list[dict]) -> tuple[str, list[dict]]:
    """Trim surrounding whitespace as Telegram does, clipping the entities to what remains."""
    stripped = text.strip()
    if stripped == text:
        return text, entities
    lead = utf16_length(text[: len(text) - len(text.lstrip())])
    total = utf16_length(stripped)
    clipped = []
    for entity in entities:
        start = max(entity["offset"] - lead, 0)
        end = min(entity["offset"] + entity["length"] - lead, total)
        if end > start:
            clipped.append({**entity, "offset": start, "length": end - start})
    return stripped, clipped
