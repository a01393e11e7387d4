// The CLI shows a host_exec_warning as a `warning:` block on stderr listing each path, with any
// terminal control sequence in a (model-chosen) path removed.
import { describe, expect, it } from 'vitest'
import { renderEvents } from '../../test/support/cli-render'

describe('host_exec_warning', () => {
  it('prints a warning block naming every path, without control sequences', () => {
    const { out, err } = renderEvents([
      { type: 'host_exec_warning', turnId: 't', paths: ['.envrc (added)', 'x\u001b]52;c;eA==\u0007y (added)'], message: 'check these' }
    ])
    expect(err).toBe('warning: check these\n  ! .envrc (added)\n  ! xy (added)\n')
    expect(out).toBe('')
  })
})
