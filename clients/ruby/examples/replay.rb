#!/usr/bin/env ruby
# frozen_string_literal: true

# Replays whole tournaments against a goswiss (or rswiss) daemon with Ruby's xmlrpc/client,
# like rswiss's xml-test.rb but bounded: each tournament is created, played to fault 202 and
# checked (nobody twice in a round, balanced byes, repeats only when allowed and as the server
# counts them, the number of rounds, standings that agree with the committed results).
# Prints a summary (or JSON with --json); exit status 1 on a violation or transport error.
#
#   ruby clients/ruby/examples/replay.rb --url http://localhost:9090/ --players 16 --tournaments 100
#
# Needs Ruby's xmlrpc gem (Debian: ruby-xmlrpc).

require 'json'
require 'optparse'
require 'xmlrpc/client'

MAX_RETRIES = 2000 # consecutive 201/203 answers one client accepts

opts = {
  url: 'http://127.0.0.1:9090/', players: 16, tournaments: 10, concurrency: 1, clients: 1,
  allow_repeat: false, additional_rounds: 0, pairing: nil, results: [20, 50, 30], seed: nil,
  json: false
}
parser = OptionParser.new do |o|
  o.banner = 'usage: replay.rb [options]'
  o.on('--url URL') { |v| opts[:url] = v }
  o.on('--players N', Integer) { |v| opts[:players] = v }
  o.on('--tournaments M', Integer) { |v| opts[:tournaments] = v }
  o.on('--concurrency C', Integer, 'tournaments in flight') { |v| opts[:concurrency] = v }
  o.on('--clients-per-tournament K', Integer) { |v| opts[:clients] = v }
  o.on('--allow-repeat') { opts[:allow_repeat] = true }
  o.on('--additional-rounds R', Integer) { |v| opts[:additional_rounds] = v }
  o.on('--pairing MODE', %w[optimal rswiss]) { |v| opts[:pairing] = v }
  o.on('--results P1/DRAW/P2', 'percent mix, default 20/50/30') do |v|
    parts = v.split('/').map { |x| Integer(x, exception: false) }
    unless parts.size == 3 && parts.all? && parts.sum == 100 && parts.min >= 0
      raise OptionParser::InvalidArgument, "#{v}: three percentages adding up to 100"
    end

    opts[:results] = parts
  end
  o.on('--seed S', Integer) { |v| opts[:seed] = v }
  o.on('--json', 'print the summary as JSON') { opts[:json] = true }
end
begin
  parser.parse!(ARGV)
rescue OptionParser::ParseError => e
  warn "replay.rb: #{e.message}"
  exit 2
end
if opts[:players] < 1 || opts[:concurrency] < 1 || opts[:clients] < 1 || opts[:additional_rounds].negative?
  warn 'replay.rb: --players, --concurrency and --clients-per-tournament must be at least 1'
  exit 2
end

# Raised for anything that is not a well-formed answer (connection, HTTP, parse).
class TransportError < StandardError; end

# One keep-alive XML-RPC client whose calls are timed per method.
class Timed
  def initialize(url, stats)
    @client = XMLRPC::Client.new2(url)
    @client.timeout = 60
    @stats = stats
  end

  def call(method, *params)
    start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    begin
      @client.call(method, *params)
    rescue XMLRPC::FaultException
      raise
    rescue StandardError => e
      raise TransportError, "#{method}: #{e.class}: #{e.message}"
    ensure
      elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
      @stats[:lock].synchronize do
        (@stats[:latencies][method] ||= []) << elapsed
        @stats[:rpcs] += 1
      end
    end
  end
end

def base_rounds(n)
  n <= 1 ? 0 : (n - 1).bit_length
end

# What the clients of one tournament saw.
class Log
  attr_reader :players, :rounds, :per_round, :checkouts, :commits

  def initialize(players, rounds, allow_repeat)
    @players = players
    @rounds = rounds
    @per_round = players.size / 2
    @allow_repeat = allow_repeat
    @checkouts = [] # [round, p1, p2]
    @commits = []   # [p1, p2, result]
    @lock = Mutex.new
  end

  def expected
    @rounds * @per_round
  end

  # A round's checkouts are answered only after the previous round's were answered and
  # committed, so arrival order gives the round.
  def checked_out(p1, p2)
    @lock.synchronize do
      @checkouts << [@checkouts.size / [@per_round, 1].max, p1, p2]
      @checkouts.size
    end
  end

  def committed(p1, p2, result)
    @lock.synchronize { @commits << [p1, p2, result] }
  end

  def pair_counts
    counts = Hash.new(0)
    @checkouts.each { |_, a, b| counts[[a, b].minmax] += 1 }
    counts
  end

  def check_rounds(violations)
    ids = @players.to_h { |p| [p, true] }
    by_round = @checkouts.group_by(&:first)
    byes = @players.to_h { |p| [p, 0] }
    last = by_round.keys.max
    by_round.keys.sort.each do |r|
      seen = {}
      by_round[r].each do |_, a, b|
        violations << "round #{r}: player #{a} paired with himself" if a == b
        [a, b].each do |p|
          violations << "round #{r}: unknown player #{p}" unless ids[p]
          violations << "round #{r}: player #{p} twice in the round" if seen[p]
          seen[p] = true
        end
      end
      complete = by_round[r].size == @per_round
      violations << "round #{r}: #{by_round[r].size} matches, expected #{@per_round}" if !complete && r != last
      @players.each { |p| byes[p] += 1 unless seen[p] } if complete && @players.size.odd?
    end
    violations << "byes unbalanced: #{byes.values.minmax}" if !byes.empty? && byes.values.max - byes.values.min > 1
    violations << "#{by_round.size} rounds played, expected #{@rounds}" if by_round.size > @rounds
    counts = pair_counts
    unless @allow_repeat
      counts.each { |(a, b), n| violations << "#{a} and #{b} met #{n} times without allow_repeat" if n > 1 }
    end
    counts.values.select { |n| n > 1 }.sum
  end

  def check_end(client, tid, repeated_rows, violations)
    violations << "#{@checkouts.size} matches played, expected #{expected}" if @checkouts.size != expected
    if @commits.map { |a, b, _| [a, b] }.sort != @checkouts.map { |_, a, b| [a, b] }.sort
      violations << 'the committed matches differ from the checked-out ones'
    end
    violations << 'has_ended is not true after fault 202' unless client.call('matchmaker.has_ended', tid) == true
    violations << "round is not #{@rounds} at the end" unless client.call('matchmaker.round', tid) == @rounds
    repeated = client.call('matchmaker.repeated_matches', tid)
    violations << "repeated_matches is #{repeated}, the clients saw #{repeated_rows}" if repeated != repeated_rows
    table = client.call('matchmaker.table_by_criteria', tid)
    expect = @players.to_h { |p| [p, [0, 0.0, 0]] }
    @commits.each do |a, b, res|
      sa, sb = { -1 => [1.0, 0.0], 0 => [0.5, 0.5], 1 => [0.0, 1.0] }.fetch(res)
      [[a, sa], [b, sb]].each do |p, s|
        expect[p][0] += 1
        expect[p][1] += s
        expect[p][2] += 1 if s == 1.0
      end
    end
    if @players.size.odd?
      @checkouts.group_by(&:first).each_value do |ms|
        seen = ms.flat_map { |_, a, b| [a, b] }
        (@players - seen).each do |p|
          expect[p][0] += 1
          expect[p][1] += 1.0
        end
      end
    end
    violations << "table_by_criteria has #{table.size} rows for #{@players.size} players" if table.size != @players.size
    last = Float::INFINITY
    table.each do |row|
      unless row.size == 8 && expect.key?(row[0])
        violations << "malformed standings row #{row.inspect}"
        next
      end
      got = [row[1], row[2], row[7]]
      violations << "player #{row[0]}: table #{got.inspect}, results give #{expect[row[0]].inspect}" if got != expect[row[0]]
      violations << "standings not sorted by score at player #{row[0]}" if row[2] > last
      last = row[2]
    end
    begin
      winner, criterion = client.call('matchmaker.winner', tid)
      violations << "winner #{winner} (#{criterion}) is not first in the table" if !table.empty? && winner != table[0][0]
    rescue XMLRPC::FaultException => e
      violations << "winner: fault #{e.faultCode}: #{e.faultString}" unless e.faultCode == 402
    end
    repeated
  end
end

# One client's checkout/commit loop: nil at fault 202, else [code, message].
def play_client(client, tid, log, rng, results, stats)
  retries = 0
  backoff = 0.001
  ((log.expected + 1) * (MAX_RETRIES + 1)).times do
    begin
      p1, p2 = client.call('matchmaker.checkout_match', tid)
    rescue XMLRPC::FaultException => e
      return nil if e.faultCode == 202
      return [e.faultCode, "fault #{e.faultCode}: #{e.faultString}"] unless [201, 203].include?(e.faultCode)

      retries += 1
      stats[:lock].synchronize { stats[:retries] += 1 }
      return [e.faultCode, "still fault #{e.faultCode} after #{MAX_RETRIES} retries"] if retries > MAX_RETRIES

      sleep backoff
      backoff = [backoff * 2, 0.032].min
      next
    end
    retries = 0
    backoff = 0.001
    return [nil, "more than #{log.expected} matches handed out"] if log.checked_out(p1, p2) > log.expected

    x = rng.rand(100)
    result = if x < results[0] then -1 elsif x < results[0] + results[1] then 0 else 1 end
    begin
      ok = client.call('matchmaker.commit_match', tid, [p1, p2], result)
    rescue XMLRPC::FaultException => e
      return [e.faultCode, "commit_match fault #{e.faultCode}: #{e.faultString}"]
    end
    return [nil, "commit_match returned #{ok.inspect}"] unless ok == true

    log.committed(p1, p2, result)
  end
  [nil, 'client loop bound reached']
end

def play_tournament(opts, index, clients, stats)
  out = { finished: false, problem: nil, code: nil, transport: false, violations: [], matches: 0, repeated: 0 }
  players = (1..opts[:players]).to_a
  params = [players, opts[:additional_rounds], opts[:allow_repeat]]
  options = {}
  options['pairing'] = opts[:pairing] if opts[:pairing]
  options['seed'] = (opts[:seed] + index) % 2**31 if opts[:seed]
  params << options unless options.empty?
  begin
    tid = clients[0].call('matchmaker.create_tournament', *params)
  rescue XMLRPC::FaultException => e
    out[:problem] = "create_tournament: fault #{e.faultCode}: #{e.faultString}"
    out[:code] = e.faultCode
    return out
  end
  log = Log.new(players, base_rounds(opts[:players]) + opts[:additional_rounds], opts[:allow_repeat])
  base = opts[:seed] || rand(2**32)
  stops = clients.each_with_index.map do |c, k|
    Thread.new do
      play_client(c, tid, log, Random.new(base * 1_000_003 + index * 101 + k), opts[:results], stats)
    rescue TransportError => e
      [:transport, e.message]
    end
  end.map(&:value)
  out[:matches] = log.commits.size
  repeated_rows = log.check_rounds(out[:violations])
  stops.compact.each do |code, msg|
    next if out[:problem]

    out[:problem] = "tournament #{tid}: #{msg}"
    code == :transport ? out[:transport] = true : out[:code] = code
  end
  unless out[:problem]
    out[:repeated] = log.check_end(clients[0], tid, repeated_rows, out[:violations])
    out[:finished] = true
  end
  out[:violations].map! { |v| "tournament #{tid}: #{v}" }
  out
end

def percentile(sorted, q)
  return 0.0 if sorted.empty?

  i = (q * sorted.size).ceil.clamp(1, sorted.size) - 1
  sorted[i] * 1000.0
end

stats = { lock: Mutex.new, latencies: {}, rpcs: 0, retries: 0 }
queue = Queue.new
opts[:tournaments].times { |i| queue << i }
queue.close
outcomes = []
outcomes_lock = Mutex.new
start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
workers = Array.new(opts[:concurrency]) do
  Thread.new do
    clients = Array.new(opts[:clients]) { Timed.new(opts[:url], stats) }
    while (index = queue.pop)
      o = begin
        play_tournament(opts, index, clients, stats)
      rescue TransportError => e
        { finished: false, problem: e.message, code: nil, transport: true, violations: [], matches: 0, repeated: 0 }
      end
      outcomes_lock.synchronize { outcomes << o }
    end
  end
end
workers.each(&:join)
wall = [Process.clock_gettime(Process::CLOCK_MONOTONIC) - start, 1e-9].max

problems = outcomes.select { |o| o[:problem] }
faults = Hash.new(0)
problems.each { |o| faults[o[:code].nil? ? 'other' : o[:code].to_s] += 1 }
violations = outcomes.flat_map { |o| o[:violations] }
matches = outcomes.sum { |o| o[:matches] }
latency = stats[:latencies].sort.to_h do |m, values|
  values.sort!
  [m, { count: values.size, p50_ms: percentile(values, 0.50).round(3), p95_ms: percentile(values, 0.95).round(3),
        p99_ms: percentile(values, 0.99).round(3), max_ms: (values.last * 1000).round(3) }]
end
summary = {
  url: opts[:url], protocol: 'xmlrpc', players: opts[:players], concurrency: opts[:concurrency],
  clients_per_tournament: opts[:clients], allow_repeat: opts[:allow_repeat],
  additional_rounds: opts[:additional_rounds], pairing: opts[:pairing], results: opts[:results].join('/'),
  seed: opts[:seed], tournaments: outcomes.size, finished: outcomes.count { |o| o[:finished] },
  problems: problems.size, problem_rate: outcomes.empty? ? 0.0 : problems.size.fdiv(outcomes.size),
  problem_faults: faults, problem_examples: problems.first(10).map { |o| o[:problem] },
  transport_errors: outcomes.count { |o| o[:transport] },
  repeated_matches: outcomes.select { |o| o[:finished] }.sum { |o| o[:repeated] },
  violations: violations.size, violation_examples: violations.first(20),
  matches: matches, rpcs: stats[:rpcs], retries: stats[:retries], wall_seconds: wall.round(3),
  rpc_per_second: (stats[:rpcs] / wall).round(3), match_cycles_per_second: (matches / wall).round(3),
  latency: latency
}
if opts[:json]
  puts JSON.generate(summary)
else
  puts "#{summary[:tournaments]} tournaments of #{opts[:players]} players over xmlrpc: " \
       "#{summary[:finished]} finished, #{summary[:problems]} problems"
  puts ">>>> Problem rate: #{summary[:problems]}/#{summary[:tournaments]} / Repeated matches: #{summary[:repeated_matches]}"
  summary[:problem_examples].each { |e| puts "  #{e}" }
  puts "invariant violations: #{summary[:violations]}"
  summary[:violation_examples].each { |e| puts "  #{e}" }
  puts format('%<m>d matches, %<r>d RPCs in %<w>.3f s: %<rps>.0f RPC/s, %<cps>.0f match cycles/s',
              m: matches, r: stats[:rpcs], w: wall, rps: summary[:rpc_per_second], cps: summary[:match_cycles_per_second])
  latency.each do |m, l|
    puts format('  %<m>-32s %<c>7d p50 %<a>.3f p95 %<b>.3f p99 %<d>.3f ms', m: m, c: l[:count], a: l[:p50_ms], b: l[:p95_ms], d: l[:p99_ms])
  end
end
exit(violations.empty? && summary[:transport_errors].zero? ? 0 : 1)
