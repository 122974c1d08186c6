"""Thai for the UI tests: sentences of the rules with their break marks, and an app that shows one."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Label, Static

from kc_tui.ui import linebreak
from kc_tui.ui.linebreak import ZWSP
from kc_tui.ui.literal_text import plain

#: Sentences of the Thai rules (shared/seeds), with the marks tools/thai_breaks.py put between
#: their words written here as "|".
MARKED = (
    "Kings Corners เป็น|เกม|ไพ่|แบบ|ผู้|เล่น|หลาย|คน|ที่|คล้าย|กับ|การ|เล่นไพ่|คนเดียว "
    "เช่นเดียวกับ|การ|เล่นไพ่|คนเดียว เป้าหมาย|ของ|เกม|คือ|การ|กำจัด|ไพ่|ทั้งหมด|ของ|คุณ",
    "ถ้า|สำรับ|ไพ่|ของ|คุณ|มี|โจ๊ก|เกอร์ ไพ่|เสริม หรือ|ไพ่|คำแนะนำ ให้|นำ|ออกจาก|สำรับ|เพื่อให้|มี|ไพ่|"
    "มาตรฐาน|เพียง 52 ใบ|เท่านั้น สับ|สำรับ|ไพ่|เพื่อ|ผสม|ไพ่|ก่อน|แจก",
    "พลิก|ไพ่|สี่|ใบ|บนสุด|ใน|สำรับ|แล้ว|วาง|ใน|รูปแบบ|กากบาท|บน|โต๊ะ|โดย|ให้|ไพ่|หนึ่ง|ใบ|หันไป|ทาง|"
    "ทิศเหนือ ทิศใต้ ทิศตะวันออก|และ|ทิศตะวันตก หาก|มี|กษัตริย์|องค์|ใด|ขึ้น|มา ให้|ย้าย|ไป|ที่|มุม|ใด|มุม|หนึ่ง "
    "(ช่องว่าง|ระหว่าง|ไพ่|สี่|ใบ|ของ|ไม้กางเขน) เติม|ช่องว่าง|ที่|พระราชา|ทิ้ง|ไว้|ด้วย|การ์ด|ใหม่|จาก|สำรับ "
    "หงาย|หน้า|เหมือน|คนอื่นๆ",
    "แต่ละ|เทิร์น|เริ่มต้น|ด้วย|ผู้|เล่น|จั่ว|การ์ด|หนึ่ง|ใบ|จาก|บนสุด|ของ|เด็ค",
    "- เมื่อ|เด็ค|กลาง|หมด ให้|เล่น|ต่อ|โดย|ไม่ต้อง|จั่วไพ่",
)
PARAGRAPHS = tuple(text.replace("|", ZWSP) for text in MARKED)


class Shows(App[None]):
    """One text in a Static (or a Label) of ``width`` cells (the screen's when None)."""

    CSS = "Static { height: auto; }"

    def __init__(self, text: str, width: int | None = None, label: bool = False) -> None:
        super().__init__()
        linebreak.install(self)
        self.text = text
        self.width = width
        self.label = label

    def compose(self) -> ComposeResult:
        widget = Label(plain(self.text), id="text") if self.label else Static(plain(self.text), id="text")
        if self.width is not None:
            widget.styles.width = self.width
        yield widget
