#!/usr/bin/perl
# systemd's part in the update tests, which cannot run systemd: it holds the site's listening socket as
# deploy/cornerstone.socket makes systemd hold it, and runs the service as the unit file says, passing
# the socket as descriptor 3 (LISTEN_FDS=1, LISTEN_PID). Perl, because Node cannot keep a listening
# socket open without accepting connections on it; perl-base is part of every Debian system.
#
#   socket-service.pl --serve HOST PORT UNIT_FILE STATE_DIR    holds the socket, starts the service
#   socket-service.pl --restart STATE_DIR [--after FILE]       `systemctl restart`: SIGTERM, wait for the
#                                                              exit, start again as the unit now says
#
# Each start reads the unit again (as after `systemctl daemon-reload`): WorkingDirectory=, ExecStart=,
# Environment=, EnvironmentFile= (NAME=value lines), TimeoutStopSec=, Restart=on-failure, RestartSec=.
# STATE_DIR/events has one line per start and stop, with the time in milliseconds.
use strict;
use warnings;
use Socket qw(PF_INET SOCK_STREAM SOL_SOCKET SO_REUSEADDR sockaddr_in inet_aton);
use Fcntl qw(F_GETFD F_SETFD FD_CLOEXEC);
use POSIX qw(dup2 setsid WNOHANG);
use Time::HiRes qw(time sleep);

my $mode = shift @ARGV // '';

sub now_ms { return int(time() * 1000); }
sub slurp { my ($file) = @_; open(my $fh, '<', $file) or return undef; local $/; my $text = <$fh>; close $fh; return $text; }
sub event { my ($dir, $line) = @_; open(my $fh, '>>', "$dir/events") or die; print $fh now_ms() . " $line\n"; close $fh; }

if ($mode eq '--restart') {
  my ($dir, $after_flag, $after) = @ARGV;
  my $started = slurp("$dir/starts") // 0;
  open(my $fh, '>', "$dir/restart-requested") or die; close $fh;
  if (defined $after_flag && $after_flag eq '--after') {
    my $deadline = time() + 30;
    sleep 0.05 until -e $after || time() > $deadline;
  }
  kill 'HUP', slurp("$dir/holder.pid") + 0 or die "the service is not running\n";
  my $deadline = time() + 60;
  sleep 0.05 while (slurp("$dir/starts") // 0) == $started && time() < $deadline;
  exit((slurp("$dir/starts") // 0) > $started ? 0 : 1);
}

die "usage: socket-service.pl --serve HOST PORT UNIT_FILE STATE_DIR | --restart STATE_DIR [--after FILE]\n" unless $mode eq '--serve';
my ($host, $port, $unit_file, $dir) = @ARGV;
socket(my $listener, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
setsockopt($listener, SOL_SOCKET, SO_REUSEADDR, 1) or die "setsockopt: $!";
bind($listener, sockaddr_in($port, inet_aton($host))) or die "bind $host:$port: $!";
listen($listener, 4096) or die "listen: $!";

sub unit {
  my %unit = (env => { PATH => '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' }, stop => 20, restart_sec => 0.1);
  for my $line (split /\n/, slurp($unit_file) // die "cannot read $unit_file\n") {
    next unless $line =~ /^(\w+)=(.*)$/;
    my ($key, $value) = ($1, $2);
    if ($key eq 'WorkingDirectory') { $unit{cwd} = $value; }
    elsif ($key eq 'ExecStart') { $unit{argv} = [split / /, $value]; }
    elsif ($key eq 'Environment') { my ($name, $v) = split /=/, $value, 2; $unit{env}{$name} = $v; }
    elsif ($key eq 'EnvironmentFile') {
      for my $setting (split /\n/, slurp($value) // die "cannot read $value\n") {
        $unit{env}{$1} = $2 if $setting =~ /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*?)\s*$/;
      }
    }
    elsif ($key eq 'TimeoutStopSec') { $unit{stop} = $value; }
    elsif ($key eq 'Restart') { $unit{restart} = $value; }
    elsif ($key eq 'RestartSec') { $unit{restart_sec} = $value; }
  }
  return \%unit;
}

my $child = 0;
my $unit;
sub start {
  $unit = unit();
  my $pid = fork() // die "fork: $!";
  if ($pid == 0) {
    setsid();
    chdir($unit->{cwd}) or die "chdir $unit->{cwd}: $!";
    open(STDOUT, '>>', "$dir/service.log") or die;
    open(STDERR, '>&', \*STDOUT) or die;
    dup2(fileno($listener), 3) // die "dup2: $!";
    open(my $fd3, '<&=', 3) or die "fd 3: $!";
    fcntl($fd3, F_SETFD, fcntl($fd3, F_GETFD, 0) & ~FD_CLOEXEC) or die "fcntl: $!";
    %ENV = (%{$unit->{env}}, LISTEN_FDS => 1, LISTEN_PID => $$);
    exec(@{$unit->{argv}}) or die "exec $unit->{argv}[0]: $!";
  }
  $child = $pid;
  event($dir, "started $pid in $unit->{cwd}");
  my $starts = (slurp("$dir/starts") // 0) + 1;
  open(my $fh, '>', "$dir/starts.next") or die; print $fh $starts; close $fh;
  rename("$dir/starts.next", "$dir/starts") or die;
}

sub stop {
  return unless $child;
  event($dir, "SIGTERM $child");
  kill 'TERM', $child;
  my $deadline = time() + $unit->{stop};
  while (waitpid($child, WNOHANG) == 0) {
    if (time() > $deadline) { kill 'KILL', $child; waitpid($child, 0); last; }
    sleep 0.02;
  }
  event($dir, "stopped $child (status $?)");
  $child = 0;
}

my ($restart, $quit) = (0, 0);
$SIG{HUP} = sub { $restart = 1; };
$SIG{TERM} = sub { $quit = 1; };
open(my $fh, '>', "$dir/holder.pid") or die; print $fh $$; close $fh;
start();
my $restart_at = 0;
my $parent = getppid();
# Ends with the test that started it, as the service ends with systemd.
while (!$quit && getppid() == $parent) {
  if ($restart) { $restart = 0; $restart_at = 0; stop(); start(); }
  if ($child && waitpid($child, WNOHANG) == $child) {
    my $status = $?;
    event($dir, "exited $child (status $status)");
    $child = 0;
    # Restart=on-failure: started again after RestartSec=, as the unit then says.
    $restart_at = time() + $unit->{restart_sec} if $status != 0 && ($unit->{restart} // '') eq 'on-failure';
  }
  if ($restart_at && time() >= $restart_at) { $restart_at = 0; start(); }
  sleep 0.05;
}
stop();
