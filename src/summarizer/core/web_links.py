"""Links a published page may carry: never to the reader's own machine or network.

A URL from outside (a listing's PDF link, a record's page, a note's link) whose host is ``localhost``
or a loopback, private, link-local or otherwise non-global address works only on the machine or
network that opens it: on a public page it points every reader at their own router, printer or local
service.  Such a link is left off the site (and a note's shows as text).  A host name is kept: what it
resolves to is the reader's DNS's business.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def local_host(url: str) -> bool:
    """Whether ``url`` names ``localhost`` or a non-global IP address (or cannot be read as a URL)."""
    try:
        host = (urlsplit(url.strip()).hostname or "").rstrip(".")
    except ValueError:
        return True  # not a URL a browser reads the same way
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return not ipaddress.ip_address(host).is_global
    except ValueError:
        return False  # a name, not an address
