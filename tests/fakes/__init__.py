"""Hand-written fakes of the services digestbot talks to, for tests and benchmarks."""
