export const meta = { name: 'ship', description: 'Ship it' }
