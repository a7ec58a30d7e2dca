"""Hostile text inputs that every text field, API endpoint and CLI command must survive with a clear answer."""
from __future__ import annotations

XSS_IMG = '<img src=x onerror="window.__studio_xss=1">'

HOSTILE_TEXTS: dict[str, str] = {
    "empty": "",
    "whitespace": " \t\n  ",
    "very_long": ("He yelps and howls like a wolf. " * 700)[:20000],
    "single_word": "wolf",
    "punctuation": "?!…;:—,.",
    "emoji": "He runs 🏃‍♂️ like the wind 🌬️ 😀😀",
    "rtl": "הוא רץ כמו הרוח مثل الريح",
    "combining": "Z̴̡̛a̸͎͠l̵̢̛g̷̨͝o̴̢͘ like a ghost",
    "zero_width": "He\u200b runs\u200d like\ufeff the wind\u2060.",
    "html_script": "<script>alert(1)</script> He sings like a bird.",
    "html_img": f"{XSS_IMG} She swims like a fish.",
    "markdown_link": "[click me](javascript:alert(1)) runs like [a deer](http://example.com)",
    "nul_control": "He\x00 runs\x07 like\x1b[31m the\x7f wind.",
    "numbers": "123456789 3.14159 -42",
}
