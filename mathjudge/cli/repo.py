"""`mathjudge repo init|check|sync|datasets`: the leaderboard as a git repository of submission
folders, which a workflow checks on pull requests and publishes from `main`."""

from __future__ import annotations

from pathlib import Path

import click

from mathjudge.base.display import neutral_lines
from mathjudge.cli.options import BOOTSTRAP, DATASETS, QUIET, STORE
from mathjudge.cli.site import LOCAL_TEXTS, REPO_URL, skipped


@click.group()
def repo() -> None:
    """The leaderboard as a git repository: init, check and sync submission folders."""


REPO = click.argument("repo", type=click.Path(file_okay=False, exists=True, path_type=Path))
PATHS = click.argument("paths", nargs=-1)
PATHS_FROM = click.option(
    "--paths-from",
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    help="Also read PATHS from this file, NUL-separated as `git diff --name-only -z` writes "
    "them ('-': standard input). Every path must lie under submissions/; an empty list names "
    "nothing to score.",
)


def _paths(paths: tuple[str, ...], paths_from: Path | None) -> list[str] | None:
    """The paths given after REPO and in --paths-from; None when neither was given (every
    folder)."""
    if paths_from is None:
        return list(paths) if paths else None
    from mathjudge.repo.pathlist import read_path_list

    return [*paths, *read_path_list(paths_from)]


def _echo(text: str) -> None:
    """Print text that holds names from a pull request (see `display.neutral_lines`)."""
    click.echo(neutral_lines(text))


@repo.command("init")
@click.argument("directory", metavar="DIR", type=click.Path(path_type=Path))
@click.option(
    "--wheel",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="The mathjudge wheel to pin (of this version).",
)
@click.option(
    "--git",
    metavar="URL@COMMIT",
    help="Build the wheel to pin from this repository at this commit (40 hex digits).",
)
@click.option(
    "--owner",
    "owners",
    multiple=True,
    metavar="@NAME",
    help="A code owner of scorer/ and .github/ (a GitHub user or @org/team; repeatable).",
)
@REPO_URL
def repo_init(
    directory: Path,
    wheel: Path | None,
    git: str | None,
    owners: tuple[str, ...],
    repo_url: str | None,
) -> None:
    """Write a new leaderboard repository at DIR (absent or empty): submissions/, a README for
    submitters, meta.example.yaml, a GitHub Actions workflow, .github/CODEOWNERS, and scorer/
    (this mathjudge's wheel and a lock pinning it and every dependency by sha256). The wheel
    is --wheel, or built from --git, from the clone mathjudge runs from, or from where the
    installed mathjudge was installed from (a wheel file, a git URL at a commit)."""
    from mathjudge.repo.scaffold import CODEOWNERS, LOCK, UNSET_OWNER, init_repo

    done = init_repo(directory, wheel, git=git, owners=owners, repo_url=repo_url)
    click.echo(f"leaderboard repository written: {directory}")
    click.echo(f"  scorer: {done.wheel} (sha256 {done.sha256}), from {done.origin}")
    click.echo(f"  install it: python -m pip install --require-hashes -r {LOCK}")
    if not done.owners:
        click.echo(
            f"  code owners: replace {UNSET_OWNER} in {CODEOWNERS} with your GitHub user or "
            "team (or init with --owner @NAME)"
        )
    click.echo(
        "next: git init -b main, commit, push to GitHub, set Settings -> Pages -> Source to "
        "GitHub Actions, and protect main (README.md in it says how)"
    )


@repo.command("sync")
@REPO
@STORE
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("site"),
    show_default=True,
    help="Where the site is written.",
)
@click.option(
    "--reported",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Also import the papers' result tables (as `reported import`): DIR is a mirror root "
    "or its reported/ folder, as for --source-dir.",
)
@click.option("--no-site", is_flag=True, help="Update the store only.")
@LOCAL_TEXTS
@REPO_URL
@BOOTSTRAP
@DATASETS
@QUIET
def repo_sync(
    repo: Path,
    store: Path,
    out: Path,
    reported: Path | None,
    no_site: bool,
    local_texts: bool,
    repo_url: str | None,
    n_boot: int,
    datasets_dir: Path,
    quiet: bool,
) -> None:
    """Score the new or changed submissions of the leaderboard repository REPO into the store,
    drop removed ones, and rebuild the site from it."""
    from mathjudge.api import publish_site
    from mathjudge.base.progress import progress_bar
    from mathjudge.repo.sync import sync
    from mathjudge.store.lock import check_store_path

    check_store_path(store)
    tables = None
    if reported is not None:
        from mathjudge import registry
        from mathjudge.dataio import mirror

        known = mirror.known_folders(registry.dataset_names())
        located = mirror.reported(reported, known, option="--reported")
        click.echo(f"reported tables: {located.how}")
        tables = located.folder
    report = sync(
        repo,
        store,
        datasets_dir,
        n_boot=n_boot,
        reported=tables,
        say=(lambda _: None) if quiet else _echo,
        progress=lambda label, total: progress_bar(label, total, quiet=quiet),
    )
    click.echo(
        f"{len(report.evaluated)} submission(s) scored, {len(report.unchanged)} unchanged, "
        f"{len(report.removed)} removed"
        + (f"; {report.reported} reported results imported" if reported else "")
    )
    if not no_site:
        from mathjudge.repo.config import repository_of

        address = repo_url or repository_of(repo)
        index = publish_site(store, out, local_texts=local_texts, on_skip=skipped, repo_url=address)
        click.echo(f"site written: {index.resolve().as_uri()}")


@repo.command("check")
@REPO
@PATHS
@PATHS_FROM
@BOOTSTRAP
@DATASETS
def repo_check(
    repo: Path, paths: tuple[str, ...], paths_from: Path | None, n_boot: int, datasets_dir: Path
) -> None:
    """Validate every submission folder of REPO and print the scores of those PATHS name
    (files or folders under submissions/, e.g. what a pull request changes; none: all).
    Writes nothing. From a workflow, pass the list with --paths-from (NUL-separated), never
    on the command line, where a file name could pass for an option. A judge name close to one
    the leaderboard knows on its benchmark gets a note proposing the alias (a pair of the
    benchmark's aliases.yaml) or the folder that holds that judge."""
    from mathjudge.base.names import printed
    from mathjudge.repo.folder import find_folders
    from mathjudge.repo.proposals import proposals
    from mathjudge.repo.sync import check

    checked = check(repo, datasets_dir, _paths(paths, paths_from), n_boot=n_boot)
    for folder, result in checked:
        _echo(f"\n{folder.name}: {printed(result.judge)} (version {folder.record.version})")
        click.echo(
            f"  coverage {result.coverage:.1%}{' (partial)' if result.partial else ''}, "
            f"{result.n_items} items, fields: {', '.join(result.fields)}"
        )
        for s in result.scores:
            if s.scope == "overall":
                low = "n/a" if s.ci_low is None else f"{s.ci_low:.4f}"
                high = "n/a" if s.ci_high is None else f"{s.ci_high:.4f}"
                value = "n/a" if s.value is None else f"{s.value:.4f}"
                click.echo(f"  {s.metric:<28} {value:>8}  [{low}, {high}]")
    for note in proposals(find_folders(repo), [folder for folder, _ in checked]):
        _echo(f"\nnote: {note}")
    click.echo(f"\nrepository valid; {len(checked)} submission(s) scored")


@repo.command("datasets")
@REPO
@PATHS
@PATHS_FROM
def repo_datasets(repo: Path, paths: tuple[str, ...], paths_from: Path | None) -> None:
    """Print the datasets the submissions of REPO (or those PATHS name) are scored on, one per
    line, for `mathjudge build`."""
    from mathjudge.repo.sync import needed_datasets

    for name in needed_datasets(repo, _paths(paths, paths_from)):
        click.echo(name)
