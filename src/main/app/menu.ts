/**
 * The native application menu: the usual roles (app menu on macOS, edit, view, window, help) and
 * the app's own commands — New session, Settings, Stop — sent to the renderer on MENU_CHANNEL as a
 * MenuCommand string; the renderer decides what each does (src/renderer/src/menu-commands.ts).
 */
import { Menu, type MenuItemConstructorOptions, type WebContents } from 'electron'

/** The renderer channel carrying menu commands. */
export const MENU_CHANNEL = 'cortex:menu'

/** Commands the menu sends to the renderer. */
export type MenuCommand = 'new-session' | 'settings' | 'stop'

/**
 * Build the menu template.
 * @param send delivers a command to the focused window's renderer (dropped when there is none)
 * @param platform `process.platform` (macOS gets the app menu and Settings under it)
 */
export function menuTemplate(send: (command: MenuCommand) => void, platform: NodeJS.Platform): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin'
  const settings: MenuItemConstructorOptions = { label: 'Settings…', accelerator: 'CmdOrCtrl+,', click: () => send('settings') }
  const template: MenuItemConstructorOptions[] = []
  if (mac) {
    template.push({
      role: 'appMenu',
      submenu: [{ role: 'about' }, { type: 'separator' }, settings, { type: 'separator' }, { role: 'services' }, { type: 'separator' }, { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, { type: 'separator' }, { role: 'quit' }]
    })
  }
  template.push(
    {
      label: 'File',
      submenu: [
        { label: 'New Session…', accelerator: 'CmdOrCtrl+N', click: () => send('new-session') },
        ...(mac ? [] : [settings]),
        { type: 'separator' },
        mac ? { role: 'close' } : { role: 'quit' }
      ]
    },
    { role: 'editMenu' },
    {
      label: 'Session',
      submenu: [{ label: 'Stop', accelerator: 'CmdOrCtrl+.', click: () => send('stop') }]
    },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
    { role: 'help', submenu: [{ role: 'about' }] }
  )
  return template
}

/**
 * Install the menu as the application menu.
 * @param target the renderer to send commands to (undefined while no window is open)
 */
export function installMenu(target: () => WebContents | undefined): void {
  const send = (command: MenuCommand): void => {
    const wc = target()
    if (wc && !wc.isDestroyed()) wc.send(MENU_CHANNEL, command)
  }
  Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate(send, process.platform)))
}
