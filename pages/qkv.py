"""Page 1: every token's vector is multiplied by three weight matrices."""

from ui import app
from ui.sections.qkv import page

page.draw(app.view())
