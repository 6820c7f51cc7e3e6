Kernel panic|Oops|kernel BUG at|BUG:|WARNING:|-+\[ cut here \]-+|KASAN|UBSAN|general protection fault[,:]|INFO: task .* blocked for more than|rcu: INFO: .*detected stall
