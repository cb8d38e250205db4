"""``summarizer demo``: the whole loop on fictional papers, offline (``run``), its stand-ins (``stand_ins``) and
its closing lines (``closing``).  Nothing is imported here: a command that only asks whether it runs in a demo
folder does not pay for the demo's run."""
