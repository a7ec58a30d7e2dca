"""Print pip's package sources as uv options, one per line, for scripts/setup.sh.

uv installs the pinned requirements several times faster than pip, but it does not read pip's configuration
(pip.conf files, PIP_* variables): a machine whose pip is pointed at a local index, a folder of wheels or a
constraints file must have them passed on. pip's own option parser gives the values pip would use, after every
configuration file and variable in pip's order of precedence. Prints nothing when pip cannot be asked (uv then uses
its defaults, and setup.sh falls back to pip if that fails)."""
from __future__ import annotations


def uv_options(index_url: str | None, extra_index_urls, find_links, constraints) -> list[str]:
    """uv's options for pip's install settings, in pip's order."""
    options = ["--index-url", index_url] if index_url else []
    for flag, values in (("--extra-index-url", extra_index_urls), ("--find-links", find_links),
                         ("--constraint", constraints)):
        for value in dict.fromkeys(values or ()):
            options += [flag, value]
    return options


def pips_sources() -> list[str]:
    from pip._internal.commands import create_command  # pip's parser: files and PIP_* as `pip install` reads them

    options, _ = create_command("install").parse_args([])
    return uv_options(options.index_url, options.extra_index_urls, options.find_links, options.constraints)


def main() -> int:
    try:
        print("\n".join(pips_sources()))
    except Exception:  # noqa: BLE001 - another pip's internals: uv's defaults, and pip if they fail
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
