"""The review desk: `summarizer review serve` — review a venue's drafts in the browser.

A local ASGI app (Starlette) over the same store and the same review functions as the CLI
(``app``: pages and routes; ``actions``: what a click does; ``queue``: the order of the drafts;
``security``: the token, the session, the host check and the content security policy).  The CLI
serves it (``cli.desk_server``): it binds 127.0.0.1, answers only at its own address, and needs a
token that lives in memory and in the first line it prints (and in the private file it hands the
browser); the token opens a session whose cookie alone can change nothing.
"""
