"""Charts for the pages: heatmaps (vector or raster), bars and lines, written as Vega-Lite dicts.

colours: every colour and the heatmaps' colour scales · spec: sizing and the parts every heatmap
shares, templates · maps: vector maps and the one call pages make · raster: maps of tiny cells as
one picture · attention_map: the attention-map component (attention_grid: the model view, every layer ×
head; attention_frames: maps scrubbed in the browser) · bar_charts · line_charts ·
run_charts: a training run's curves and its heads' history. A chart kind is one module (its spec, its
drawing and its text alternative) and its line below.
"""

from ui.charts.bar_charts import bars
from ui.charts.colours import SIGNED, WEIGHTS, ramp_domain, scheme_colours, symmetric_domain, weight_domain
from ui.charts.line_charts import by_position, lines
from ui.charts.maps import heatmap
from ui.charts.run_charts import curves, history

__all__ = [
    "SIGNED",
    "WEIGHTS",
    "bars",
    "by_position",
    "curves",
    "heatmap",
    "history",
    "lines",
    "ramp_domain",
    "scheme_colours",
    "symmetric_domain",
    "weight_domain",
]
