"""Types of the core's 64-bit build: the same module as _kdcore (setup.py, kdcore64.c)."""

from bots.native._kdcore import EVAL_HEADER as EVAL_HEADER
from bots.native._kdcore import EVAL_MAX_BANDS as EVAL_MAX_BANDS
from bots.native._kdcore import EVAL_MAX_REGIONS as EVAL_MAX_REGIONS
from bots.native._kdcore import EVAL_PHASES as EVAL_PHASES
from bots.native._kdcore import EVAL_REGION_LIMIT as EVAL_REGION_LIMIT
from bots.native._kdcore import EVAL_SCALAR_SLOTS as EVAL_SCALAR_SLOTS
from bots.native._kdcore import MATE as MATE
from bots.native._kdcore import MAX_SQUARES as MAX_SQUARES
from bots.native._kdcore import TABLES_WITH_SPECIAL as TABLES_WITH_SPECIAL
from bots.native._kdcore import Core as Core
