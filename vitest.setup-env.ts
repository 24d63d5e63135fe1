// Runs in every test process before its tests. Tests assert on exact terminal text, so the runner's own
// colour settings (Nx sets FORCE_COLOR for the tasks it runs) must not reach the code under test or the
// processes it starts; a test that wants colour sets it explicitly.
delete process.env['FORCE_COLOR'];
delete process.env['NO_COLOR'];
