// The CLI shows a host_exec_warning as a `warning:` block on stderr listing each path, with any
// terminal control sequence in a (model-chosen) path removed.
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createRenderer } from './render'

describe('host_exec_warning', () => {
  it('prints a warning block naming every path, without control sequences', () => {
    const out = new PassThrough()
    const err = new PassThrough()
    createRenderer({ out, err, color: false })({
      sessionId: 's', seq: 1, time: 0,
      event: { type: 'host_exec_warning', turnId: 't', paths: ['.envrc (added)', 'x\u001b]52;c;eA==\u0007y (added)'], message: 'check these' }
    })
    const text = String(err.read() ?? '')
    expect(text).toBe('warning: check these\n  ! .envrc (added)\n  ! xy (added)\n')
    expect(out.read()).toBeNull()
  })
})
