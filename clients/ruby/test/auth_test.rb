# frozen_string_literal: true

require_relative 'test_helper'

# Against the daemon with auth on (GOSWISS_AUTH_URL; open_creation, so anyone may create and
# gets the tournament's director token): a write without the token, or with another
# tournament's, is refused with Goswiss::Unauthorized; with its token it passes.
class AuthTest < Minitest::Test
  include Helpers

  PLAYER = { 'name' => 'Lee', 'first_name' => 'A', 'rank' => '3d' }.freeze

  %i[jsonrpc xmlrpc].each do |protocol|
    define_method("test_a_write_needs_the_director_token_over_#{protocol}") do
      Goswiss::Client.open(auth_url, protocol: protocol) do |c|
        t = c.tournament_create({ 'name' => "Auth #{protocol}", 'rounds' => 2 })
        other = c.tournament_create({ 'name' => "Other #{protocol}", 'rounds' => 2 })
        refute_empty t['director_token']
        e = assert_raises(Goswiss::Unauthorized) { c.tournament_player_add(t['id'], PLAYER) }
        assert_equal(-32_010, e.code)
        assert_kind_of Goswiss::ServerFault, e
        c.use_token(other['director_token'])
        assert_raises(Goswiss::Unauthorized) { c.tournament_player_add(t['id'], PLAYER) }
        # Reads stay open; nothing was written by the refused calls.
        assert_equal 1, c.tournament_get(t['id'])['revision']
        c.use_token(t['director_token'])
        added = c.tournament_player_add(t['id'], PLAYER)
        assert_equal 2, added['revision']
        assert_equal ['Lee'], c.tournament_player_list(t['id']).map { |p| p['name'] }
      end
    end
  end

  def test_the_token_given_to_new_is_sent
    t = Goswiss::Client.open(auth_url) { |c| c.tournament_create({ 'name' => 'Auth new', 'rounds' => 1 }) }
    Goswiss::Client.open(auth_url, token: t['director_token']) do |c|
      assert_equal 2, c.tournament_player_add(t['id'], PLAYER)['revision']
      c.use_token(nil)
      assert_raises(Goswiss::Unauthorized) { c.tournament_delete(t['id']) }
    end
  end
end
