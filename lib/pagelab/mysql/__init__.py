"""Managed MariaDB/MySQL instances: one private server per datadir and page size."""

from pagelab.mysql.config import ServerSettings, parse_set_options
from pagelab.mysql.flavour import ServerFlavour, detect_server
from pagelab.mysql.instance import Instance
from pagelab.mysql.pagesize import PAGE_SIZES, parse_page_size

__all__ = [
    "Instance", "ServerSettings", "ServerFlavour", "detect_server", "parse_set_options",
    "PAGE_SIZES", "parse_page_size",
]
