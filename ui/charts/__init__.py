"""Charts for the pages: heatmaps drawn by one Components v2 component, bars and lines as Vega-Lite dicts.

colours: every colour and the heatmaps' colour scales · attention_map: the component that draws and picks
every heatmap in the browser (attention_grid: the model view, every layer × head; attention_frames: maps
scrubbed in the browser) · maps: heatmap, the one-map call pages make · spec: the bars' and lines'
Vega-Lite templates · bar_charts · line_charts ·
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
