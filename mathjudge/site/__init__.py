"""Results store -> static leaderboard site: export data files, render pages from them."""

from mathjudge.site.render import build_site

__all__ = ["build_site"]
