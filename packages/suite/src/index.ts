// @phoneloop/suite: runs the virtual phone's tasks as a suite (`npm run suite`), each attempt a real run of the agent.
export {};
