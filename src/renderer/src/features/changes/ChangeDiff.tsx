/**
 * One changed file in Monaco's diff editor (side by side, inline when the pane is narrow), loaded
 * lazily from the bundle (monaco-setup.ts), in the app's light or dark theme. Binary and large files
 * show a notice instead.
 */
import { DiffEditor, type DiffOnMount } from '@monaco-editor/react'
import { useEffect, useRef } from 'react'
import '../files/monaco-setup'
import type { RequestOutput } from '../../../../shared/contract'
import type { FileSide } from '../../../../shared/checkpoints'
import { languageOf } from './languages'
import { useColorScheme } from '../layout/color-scheme'

/** Width (px) under which the diff is shown inline rather than side by side. */
export const INLINE_BELOW_PX = 700

function notice(side: FileSide | null): string | null {
  if (!side) return null
  if (side.large) return `large file (${side.size.toLocaleString()} bytes): only its size and hash were recorded, so no diff can be shown`
  if (side.binary) return `binary file (${side.size.toLocaleString()} bytes): no text diff`
  return null
}

/** The diff of one file (default export so it can be React.lazy-loaded). */
export default function ChangeDiff({ diff, width }: { diff: RequestOutput<'fileDiff'>; width: number }): React.JSX.Element {
  // The models are kept by the wrapper and released here, before it disposes the editor: letting it
  // dispose them first throws "TextModel got disposed before DiffEditorWidget model got reset".
  const editor = useRef<Parameters<DiffOnMount>[0] | null>(null)
  const scheme = useColorScheme()
  useEffect(
    () => () => {
      const e = editor.current
      const models = e?.getModel()
      e?.setModel(null)
      models?.original.dispose()
      models?.modified.dispose()
    },
    []
  )
  const why = notice(diff.after) ?? notice(diff.before)
  if (why) {
    return (
      <div className="panel-empty change-notice" data-testid="change-notice">
        {diff.path}: {why}
      </div>
    )
  }
  return (
    <div className="change-diff" data-testid="change-diff">
      <DiffEditor
        height="100%"
        theme={scheme === 'dark' ? 'vs-dark' : 'vs'}
        language={languageOf(diff.path)}
        original={diff.before?.text ?? ''}
        modified={diff.after?.text ?? ''}
        keepCurrentOriginalModel
        keepCurrentModifiedModel
        onMount={(e) => (editor.current = e)}
        options={{
          readOnly: true,
          originalEditable: false,
          renderSideBySide: width >= INLINE_BELOW_PX,
          useInlineViewWhenSpaceIsLimited: true,
          renderSideBySideInlineBreakpoint: INLINE_BELOW_PX,
          minimap: { enabled: false },
          scrollBeyondLastLine: false,
          fontSize: 12
        }}
      />
    </div>
  )
}
