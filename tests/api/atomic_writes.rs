//! In-use checks and reference checks run in the transaction of the write they guard: a
//! delete racing a create or update that routes to the record either wins (and the
//! other write is refused) or loses with 409; a destination list never names a record
//! that is gone.

use serde_json::{Value, json};

use crate::fixture::World;
use crate::on_both_backends;
use crate::support::{Answer, TestApp};

const ROUNDS: usize = 40;

/// Destinations naming an extension, IVR or paging group that does not exist.
async fn dangling(app: &TestApp) -> i64 {
    use sea_query::{Expr, Query};
    let select = Query::select()
        .expr(Expr::cust(
            "COUNT(*) FROM destinations d WHERE \
             (d.dest_type IN ('EXT', 'VOICEMAIL') AND NOT EXISTS (SELECT 1 FROM extensions e WHERE e.id = d.target_id)) \
             OR (d.dest_type = 'IVR' AND NOT EXISTS (SELECT 1 FROM ivrs i WHERE i.id = d.target_id)) \
             OR (d.dest_type = 'PAGING_GROUP' AND NOT EXISTS (SELECT 1 FROM paging_groups p WHERE p.id = d.target_id))",
        ))
        .take();
    app.state.db.conn().scalar(&select).await.unwrap()
}

/// One of the two racing writes won: the delete (the other refused, 400 by the early
/// check or 409 in the transaction) or the routing write (the delete refused, 409).
fn one_won(round: usize, delete: &Answer, write: &Answer) {
    let (d, w) = (delete.status.as_u16(), write.status.as_u16());
    assert!(
        (d == 200 && matches!(w, 400 | 409)) || (d == 409 && w == 200),
        "round {round}: delete {d} {}, write {w} {}",
        delete.body,
        write.body
    );
}

async fn deleting_an_extension_races_a_group_created_on_it(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    for round in 0..ROUNDS {
        let ext = app
            .create(
                "/v2/admin/extensions/",
                &a,
                json!({"number": format!("3{round:03}"), "name": "Racing"}),
            )
            .await;
        let path = format!("/v2/admin/extensions/{}", ext["id"]);
        let group = json!({"tenantId": w.tenant_a, "number": format!("6{round:03}"), "name": "G",
                           "routingDestinations": [{"id": ext["id"], "destType": "EXT"}]});
        let (delete, create) = tokio::join!(
            app.delete(&path, &a),
            app.post("/v2/admin/paging-groups/", &a, group),
        );
        one_won(round, &delete, &create);
        assert_eq!(dangling(&app).await, 0, "round {round}");
    }
}

async fn deleting_an_extension_races_a_group_routed_to_it(app: TestApp) {
    let w = World::seed(&app).await;
    let a = app.login(w.admin_a).await;
    let group = app
        .create(
            "/v2/admin/paging-groups/",
            &a,
            json!({"tenantId": w.tenant_a, "number": "80", "name": "G",
            "routingDestinations": [{"id": w.ext_a, "destType": "EXT"}]}),
        )
        .await;
    let group_path = format!("/v2/admin/paging-groups/{}", group["id"]);
    for round in 0..ROUNDS {
        let ext = app
            .create(
                "/v2/admin/extensions/",
                &a,
                json!({"number": format!("3{round:03}"), "name": "Racing"}),
            )
            .await;
        let path = format!("/v2/admin/extensions/{}", ext["id"]);
        let members = json!({"routingDestinations": [{"id": w.ext_a, "destType": "EXT"},
                                                     {"id": ext["id"], "destType": "EXT"}]});
        let (delete, update) =
            tokio::join!(app.delete(&path, &a), app.patch(&group_path, &a, members));
        one_won(round, &delete, &update);
        assert_eq!(dangling(&app).await, 0, "round {round}");
        let members: Vec<Value> = app.get(&group_path, &a).await.expect(200)["routingDestinations"]
            .as_array()
            .unwrap()
            .clone();
        let expected = if update.status.as_u16() == 200 { 2 } else { 1 };
        assert_eq!(members.len(), expected, "round {round}");
        if update.status.as_u16() == 200 {
            // Put the group back to one member so the next extension can go.
            app.patch(
                &group_path,
                &a,
                json!({"routingDestinations": [{"id": w.ext_a, "destType": "EXT"}]}),
            )
            .await
            .expect(200);
        }
    }
}

on_both_backends!(
    deleting_an_extension_races_a_group_created_on_it,
    deleting_an_extension_races_a_group_routed_to_it,
);
