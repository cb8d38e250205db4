from conftest import RunCli


def test_help_lists_every_command(cli: RunCli) -> None:
    result = cli("--help")
    assert result.code == 0
    for command in ("fetch", "summarize", "run", "regen", "review", "build", "import", "export", "status", "demo"):
        assert command in result.out
