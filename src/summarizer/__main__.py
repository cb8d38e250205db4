from summarizer.apps.cli import entry

entry()
