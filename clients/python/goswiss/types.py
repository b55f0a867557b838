"""The types the daemon's `rpc.discover` declares (TypedDicts), generated into `_generated`.

`UNTYPED_METHODS` lists the methods that the document still types only as object / array:
their parameters and results are `dict[str, Any]` / `list[Any]` here until it says more.
"""

from ._generated import *  # noqa: F401,F403
from ._generated import UNTYPED_METHODS, __all__ as _generated_all

__all__ = [*_generated_all, "UNTYPED_METHODS"]
