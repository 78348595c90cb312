# The public API of ``toolresponse.dask``. Each name is declared here once; ``__init__.py``
# reads these lines (lazy_loader), so that importing the package needs no Dask.

from ._cluster import ClusterTimeout as ClusterTimeout
from ._cluster import DaskUnavailable as DaskUnavailable
from ._cluster import Validation as Validation
from ._cluster import check_on as check_on
from ._cluster import connect as connect
from ._cluster import validate_bag as validate_bag
from ._cluster import validate_paths as validate_paths
from ._partition import Summary as Summary
from ._partition import check_partition as check_partition

__all__: list[str]
