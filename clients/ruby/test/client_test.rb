# frozen_string_literal: true

require_relative 'test_helper'
require 'socket'

# The client over both protocols against the live daemon: typed calls, errors per code.
class ClientTest < Minitest::Test
  include Helpers

  def test_the_installed_gem_is_under_test
    where = ENV['GOSWISS_PACKAGE_DIR'] || skip('not run from tests/it/clients/ruby_client.rs')
    file, = Goswiss::Client.instance_method(:call).source_location
    assert file.start_with?(File.expand_path(where)), "#{file} is not under #{where}"
    file, = Goswiss::Methods.instance_method(:tournament_create).source_location
    assert file.start_with?(File.expand_path(where)), "#{file} is not under #{where}"
  end

  %i[jsonrpc xmlrpc].each do |protocol|
    define_method("test_a_whole_round_over_#{protocol}") do
      Goswiss::Client.open(url, protocol: protocol) do |c|
        assert_equal protocol, c.protocol
        t = c.tournament_create({ 'name' => "Sync #{protocol}", 'rounds' => 2, 'system' => 'mcmahon' })
        tid = t['id']
        assert_kind_of Integer, tid
        assert_equal 1, t['revision']
        refute_empty t['director_token']
        ids = players(c, tid, 6)
        assert_equal ids.sort, c.tournament_player_list(tid).map { |p| p['id'] }.sort
        games = c.tournament_round_pair(tid, 1)['games']
        assert_equal 3, games.size
        assert_equal ids.sort, games.flat_map { |g| [g['white'], g['black']] }.sort
        games.each { |g| assert_equal 'B+', c.tournament_result_set(tid, 1, g['table'], 'B+')['result'] }
        rows = c.tournament_standings(tid, nil, ['NBW'])['rows']
        assert_equal 6, rows.size
        winners = games.map { |g| g['black'] }
        nbw = rows.to_h { |r| [r['player_id'], r['values']['NBW']] }
        assert_equal [1], winners.map { |p| nbw[p] }.uniq
        assert_equal [0], (ids - winners).map { |p| nbw[p] }.uniq
        assert_equal winners.sort, rows.first(3).map { |r| r['player_id'] }.sort
        log = c.tournament_events(tid)
        assert_equal 1 + 6 + 1 + 3, log['revision']
        assert_equal (1..11).to_a, log['events'].map { |e| e['revision'] }
        # call reaches any method by name, with what the server sent.
        assert_equal({ 'a' => [1, 'two'] }, c.call('system.echo', { 'a' => [1, 'two'] }))
        assert_includes c.system_list_methods, 'tournament.player.add'
      end
    end

    define_method("test_errors_raise_their_codes_class_over_#{protocol}") do
      Goswiss::Client.open(url, protocol: protocol) do |c|
        e = assert_raises(Goswiss::NoSuchTournament) { c.tournament_get(987_654_321) }
        assert_equal 1001, e.code
        assert_includes e.message, '987654321'
        assert_kind_of Goswiss::TournamentError, e
        assert_kind_of Goswiss::Fault, e
        t = c.tournament_create({ 'name' => "Errors #{protocol}", 'rounds' => 3 })
        e = assert_raises(Goswiss::StaleRevision) do
          c.tournament_player_add(t['id'], { 'name' => 'A', 'first_name' => 'B', 'rank' => '1d' }, { 'if_revision' => 99 })
        end
        assert_equal 1002, e.code
        # JSON-RPC carries the error's data; XML-RPC faults have none.
        if protocol == :jsonrpc
          assert_equal({ 'revision' => 1, 'if_revision' => 99 }, e.data)
        else
          assert_nil e.data
        end
        e = assert_raises(Goswiss::InvalidParams) { c.call('tournament.create', { 'name' => 'Typo', 'roundz' => 3 }) }
        assert_equal(-32_602, e.code)
        assert_raises(Goswiss::WrongRound) { c.tournament_round_pair(t['id'], 2) } # round 1 first
        assert_raises(Goswiss::NoSuchRound) { c.tournament_round_pair(t['id'], 4) }
      end
    end
  end

  def test_invalid_params_data_names_the_bad_path
    Goswiss::Client.open(url) do |c|
      e = assert_raises(Goswiss::InvalidParams) { c.call('tournament.create', { 'name' => 'X', 'rounds' => 'four' }) }
      assert_kind_of Goswiss::ProtocolFault, e
      assert_equal 'settings.rounds', e.data['path']
    end
  end

  def test_unknown_method
    Goswiss::Client.open(url) do |c|
      e = assert_raises(Goswiss::MethodNotFound) { c.call('no.such.method') }
      assert_equal(-32_601, e.code)
    end
  end

  def test_matchmaker_over_xmlrpc_as_rswiss_clients_do
    Goswiss::Client.open(url, protocol: :xmlrpc) do |c|
      tid = c.matchmaker_create_tournament([1, 2, 3, 4], 0, false)
      pair = c.matchmaker_checkout_match(tid)
      assert_equal 2, pair.size
      assert_equal true, c.matchmaker_commit_match(tid, pair, 0)
      e = assert_raises(Goswiss::NotEnded) { c.matchmaker_winner(tid) }
      assert_kind_of Goswiss::MatchmakerError, e
      assert_equal 401, e.code
    end
  end

  def test_nil_and_big_integers_over_xmlrpc
    Goswiss::Client.open(url, protocol: :xmlrpc) do |c|
      # Sent as <nil/> and <i8>; the daemon answers <nil/> to a client that used it.
      assert_equal [1, nil, { 'a' => nil }, 2**40, -2**40], c.system_echo([1, nil, { 'a' => nil }, 2**40, -2**40])
    end
  end

  def test_follow_yields_every_event_once_in_order
    Goswiss::Client.open(url) do |c|
      t = c.tournament_create({ 'name' => 'Follow', 'rounds' => 1 })
      players(c, t['id'], 3)
      seen = c.follow(t['id'], since_revision: 1, interval: 0.05, idle: 0.2).map { |e| [e['revision'], e['kind']] }
      assert_equal [[2, 'player_registered'], [3, 'player_registered'], [4, 'player_registered']], seen
      # A write made while following arrives on a later poll.
      got = []
      writer = Thread.new do
        Goswiss::Client.open(url) { |w| w.tournament_player_add(t['id'], { 'name' => 'Late', 'first_name' => 'L', 'rank' => '2k' }) }
      end
      # idle: a bound only a hang reaches, so that a lost write fails the test instead.
      c.follow(t['id'], since_revision: 4, interval: 0.02, idle: 120) do |e|
        got << e['revision']
        break
      end
      writer.join
      assert_equal [5], got
    end
  end

  def test_a_dead_daemon_is_a_transport_error
    server = TCPServer.new('127.0.0.1', 0)
    port = server.addr[1]
    server.close # nobody listens there any more
    c = Goswiss::Client.new("http://127.0.0.1:#{port}/", timeout: 5)
    assert_raises(Goswiss::TransportError) { c.system_echo('x') }
  end

  # A fake daemon: answers `answers[k]` requests on its k-th connection (echoing the JSON-RPC
  # id), then closes that connection with the next request unanswered.
  def fake_daemon(answers)
    server = TCPServer.new('127.0.0.1', 0)
    thread = Thread.new do
      answers.each do |count|
        sock = server.accept
        (count + 1).times do |k|
          head = +''
          begin
            head << sock.readpartial(1) until head.end_with?("\r\n\r\n")
          rescue EOFError
            break # the client closed the connection
          end
          body = sock.read(Integer(head[/content-length: *(\d+)/i, 1]))
          break if k == count

          reply = JSON.generate({ 'jsonrpc' => '2.0', 'id' => JSON.parse(body)['id'], 'result' => k })
          sock.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: #{reply.bytesize}\r\n\r\n#{reply}")
        end
        sock.close
      end
    end
    [server, thread]
  end

  def test_a_reused_connection_closed_unanswered_is_retried_once
    server, thread = fake_daemon([1, 1])
    c = Goswiss::Client.new("http://127.0.0.1:#{server.addr[1]}/", timeout: 30)
    assert_equal 0, c.system_echo('first')
    # The server drops the kept-alive connection with this request unread: sent again on a new one.
    assert_equal 0, c.system_echo('second')
    c.close
    thread.join(30)
    server.close
  end

  def test_a_fresh_connection_closed_unanswered_is_connection_lost
    server, thread = fake_daemon([0])
    c = Goswiss::Client.new("http://127.0.0.1:#{server.addr[1]}/", timeout: 30)
    assert_raises(Goswiss::ConnectionLost) { c.system_echo('x') }
    thread.join(30)
    server.close
  end

  def test_error_data_is_kept_and_unknown_codes_are_plain_faults
    e = Goswiss.fault_for(1002, 'stale', { 'revision' => 5 })
    assert_instance_of Goswiss::StaleRevision, e
    assert_equal({ 'revision' => 5 }, e.data)
    unknown = Goswiss.fault_for(4242, 'new code')
    assert_instance_of Goswiss::Fault, unknown
    assert_equal 4242, unknown.code
    assert_nil unknown.data
  end

  # Every code in the README's error table and docs/*.md error tables.
  def documented_codes
    paths = [File.join(REPO, 'README.md')] +
            %w[tournament.md rswiss.md pairing.md sgf.md score.md aga.md ratings.md].map { |n| File.join(REPO, 'docs', n) }
    codes = []
    paths.each do |path|
      File.foreach(path) do |line|
        m = line.match(/\A\| *(-?\d{1,5}) *\|/)
        next unless m

        codes << Integer(m[1])
        # docs/tournament.md puts several codes on one line: "· 1012 duplicate ..."
        codes.concat(line.scan(/· (\d{4}) /).flatten.map { |x| Integer(x) }) if line.include?('·')
      end
    end
    codes.uniq
  end

  def test_every_documented_code_has_its_class
    codes = documented_codes
    assert_empty [-32_602, 1001, 1002, 202, 610, 710, 810, 910, 1201, -32_010] - codes
    missing = (codes - Goswiss::ERRORS.keys).sort
    assert_empty missing, "documented codes without a class in lib/goswiss/errors.rb: #{missing}"
    Goswiss::ERRORS.each do |code, cls|
      assert_equal code, cls::CODE
      assert cls < Goswiss::Fault
    end
  end
end
