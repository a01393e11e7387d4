/**
 * The `--repo <dir>` option the repository subcommands share (rules, trust, mcp, guest setup), so
 * its spelling and help text stay one.
 */
import { Option } from 'commander'

/** A fresh `--repo <dir>` option (commander options are per command): the current folder when not given. */
export const repoOption = (): Option => new Option('--repo <dir>', 'repository folder (default: the current folder)')
