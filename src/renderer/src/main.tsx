/** Renderer entry: mounts <App/> into #root. */
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { installMenuCommands } from './menu-commands'
import { installTheme } from './features/layout/color-scheme'
import './styles.css'
import './desk.css'

installMenuCommands()
installTheme()
const root = document.getElementById('root')
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>
  )
}
