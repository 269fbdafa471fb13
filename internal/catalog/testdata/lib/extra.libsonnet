{ runbooks+: { baseURL: 'https://runbooks.example.com/gpu/' } }
