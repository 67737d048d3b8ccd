export const meta = { name: 'triage', description: 'Triage issues' }
