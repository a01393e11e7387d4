// Which processes end_model_processes ends, over a process table shaped like a guest's (init, the
// main process, the agent, a bash call, escaped orphans, user shells from docker exec, the host's
// own spawns), and the /proc stat parser on command names with spaces and parentheses.
import { describe, expect, it } from 'vitest'
import { modelProcesses, parseStat, type ProcEntry } from './end-processes'

const table = (rows: Array<[pid: number, ppid: number, start: number, state?: string]>): Map<number, ProcEntry> =>
  new Map(rows.map(([pid, ppid, start, state]) => [pid, { pid, ppid, start, state: state ?? 'S' }]))

describe('modelProcesses', () => {
  // 1 init · 7 main sh → 8 first agent (self) → 20 bash call (leader) → 21 its child
  // 8 → 30 ripgrep (the host's spawn) → 31 its child
  // 40 setsid loop (orphan) → 41 sleep · 50 escaped with a cleared env, TERM ignored (orphan)
  // 60 user shell (docker exec, ppid 0) → 61 its job · 70 hang-up exec · 80 zombie orphan
  const procs = table([
    [1, 0, 100], [7, 1, 101], [8, 7, 102],
    [20, 8, 500], [21, 20, 501],
    [30, 8, 510], [31, 30, 511],
    [40, 1, 400], [41, 40, 520],
    [50, 1, 450],
    [60, 0, 300], [61, 60, 310],
    [70, 0, 530],
    [80, 1, 460, 'Z']
  ])

  it('ends the bash call, its children and the orphans; spares init, main, the agent, host spawns and exec trees', () => {
    expect(modelProcesses(procs, 8, new Set([20])).map((p) => p.pid).sort((a, b) => a - b)).toEqual([20, 21, 40, 41, 50])
  })

  it('a restarted agent (an exec, ppid 0) spares its own helpers and the idle main process', () => {
    // the first agent died; main (7) is now the idle stdin reader; 90 is the agent an exec restarted
    const restarted = table([
      [1, 0, 100], [7, 1, 101], [90, 0, 600], [91, 90, 610], [92, 90, 620], [93, 92, 621], [40, 1, 400], [60, 0, 300], [61, 60, 310]
    ])
    expect(modelProcesses(restarted, 90, new Set([92])).map((p) => p.pid).sort((a, b) => a - b)).toEqual([40, 92, 93])
  })

  it('finds the main process by start time, not by pid (pids wrap)', () => {
    const wrapped = table([[1, 0, 100], [300, 1, 101], [8, 300, 102], [5, 1, 900]])
    expect(modelProcesses(wrapped, 8, new Set()).map((p) => p.pid)).toEqual([5])
  })

  it('counts a process whose parent vanished between reads as an orphan (it is being re-parented to init)', () => {
    const torn = table([[1, 0, 100], [7, 1, 101], [8, 7, 102], [61, 60, 310], [62, 0, 320], [63, 62, 330]])
    expect(modelProcesses(torn, 8, new Set()).map((p) => p.pid)).toEqual([61])
  })

  it('with no running bash call ends only orphans', () => {
    expect(modelProcesses(procs, 8, new Set()).map((p) => p.pid).sort((a, b) => a - b)).toEqual([40, 41, 50])
  })
})

describe('parseStat', () => {
  it('reads pid, state, ppid and start time past a command name with spaces and parentheses', () => {
    const rest = Array.from({ length: 50 }, (_, i) => String(i)).join(' ')
    const f = rest.split(' ')
    f[0] = 'T'
    f[1] = '1'
    f[19] = '123456'
    expect(parseStat(`4242 (a (b) c) ${f.join(' ')}`)).toEqual({ pid: 4242, ppid: 1, state: 'T', start: 123456 })
    expect(parseStat('garbage')).toBeUndefined()
  })
})
