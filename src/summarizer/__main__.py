from summarizer.cli import entry

entry()
